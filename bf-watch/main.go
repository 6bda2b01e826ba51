// Command bf-watch serves the verbs that make a brain act: bf run (one routine or
// assistant now, or every routine of a hook) and bf watch (the collecting watcher that
// runs due sensors, routines, assistant schedules, wakes, inputs, jobs and deliveries).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/bfgo/bf/libbf/assist"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/keeper"
	"github.com/bfgo/bf/libbf/watch"
)

// MaxStdin and StdinWait bound what bf run --stdin reads.
const (
	MaxStdin  = 1 << 20
	StdinWait = 10 * time.Second
)

func main() {
	var (
		// extra are the arguments after the first --, for the program (bf run NAME -- ARGS…).
		extra                            []string
		brainFlag                        *cli.Optional
		stdin, dryRun, asJSON, cacheOnly bool
		hook, notify                     string
		interval, pollInterval           float64
		cycles                           int
		sensors, routines, assistants    cli.List
	)
	runCmd := &cli.Command{
		Name: "run",
		Usage: `usage: bf run NAME [--stdin] [--dry-run] [--brain NAME|PATH] [-- ARGS…]
       bf run --hook EVENT [--brain NAME|PATH]

Run one routine or assistant of bf.yaml now, manual ones included. ARGS are appended to
its command; --stdin pipes stdin to it (at most 1 MiB, read within 10 s). Needs
collection trust: bf register PATH --collect.
A routine prints {"routine","start","end","status","action"?,"error"?}; an action
routine's Markdown becomes actions/YYYY-MM-DD_NAME/ACTION.md (keep: N keeps the newest N
untouched ones). An assistant runs as a job of kind run in the queue and prints
{"job","assistant","kind","state","answer"?,"record"?,"wake"?,"error"?}; its answer is
stored in memories/NAME/. --dry-run runs nothing: a routine prints its window, an
assistant the harness argv and the prompt it would read.
--hook EVENT runs every enabled routine that lists EVENT in its hooks, such as a Git
pre-push hook, and prints {"hook","ok","routines"}. Exits 1 when a run failed.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&stdin, "stdin", false, "pipe stdin to the routine or assistant")
			fs.BoolVar(&dryRun, "dry-run", false, "show what would run; run nothing")
			fs.StringVar(&hook, "hook", "", "run every routine listing `EVENT` in its hooks")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			switch {
			case hook != "" && len(args) > 0:
				return cli.Usagef("pass NAME or --hook EVENT, not both (see bf run --help)")
			case hook == "" && len(args) != 1:
				return cli.Usagef("bf run takes one routine or assistant NAME, or --hook EVENT (see bf run --help)")
			}
			now, err := env.Clock()
			if err != nil {
				return err
			}
			b, err := cli.One(brain.Execution, brainFlag)
			if err != nil {
				return err
			}
			var input []byte
			if stdin {
				if input, err = readStdin(env.Stdin); err != nil {
					return err
				}
			}
			opt := collect.RunOptions{Options: collect.Options{DryRun: dryRun, Now: now}, Stdin: input, Args: extra}
			if hook != "" {
				res, err := collect.RunHook(ctx, b, hook, opt)
				if err != nil {
					return cli.Classify(err)
				}
				if err := cli.WriteJSON(env.Stdout, res); err != nil {
					return err
				}
				if !res.OK {
					return cli.ErrCheckFailed
				}
				return nil
			}
			name := args[0]
			if _, ok := b.Config.Assistants[name]; ok {
				ao := assist.Runner{Now: now}
				if dryRun {
					res, err := ao.DryRun(b, name, input, extra)
					return cli.Output(env, res, err)
				}
				res, err := ao.RunNow(ctx, b, name, input, extra)
				if res != nil {
					if werr := cli.WriteJSON(env.Stdout, res); werr != nil {
						return werr
					}
					if err == nil && res.Error != "" {
						fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(res.Error))
						return cli.ErrCheckFailed
					}
				}
				return cli.Classify(err)
			}
			res, err := collect.RunRoutine(ctx, b, name, opt)
			if err != nil {
				return cli.Classify(err)
			}
			if err := cli.WriteJSON(env.Stdout, res); err != nil {
				return err
			}
			if res.Status == collect.StatusFailed {
				fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(res.Error))
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	watchCmd := &cli.Command{
		Name: "watch",
		Usage: `usage: bf watch [--json] [--interval S] [--poll-interval S] [--notify MODE] [--cycles N]
                [--sensor N]… [--routine N]… [--assistant N]… [--brain NAME|PATH]
       bf watch --cache [--brain NAME|PATH]

Keep the brain's programs running while it stays open: every cycle runs the due sensors
and routines, the assistants' due schedules and wakes, reads their read inputs, runs
queued jobs and attempts due deliveries; stream inputs run all along. One watcher
collects per brain: a second --json watcher fails, an interactive one only observes.
--json prints one status line every poll interval: {"brain","cycles","message",
"programs","running",…}. --interval is the pause after each cycle (default: watch.interval
of bf.yaml, 60), --poll-interval how often a line is printed (default 2). --notify is
off, failure, success or all (default: watch.notifications). --cycles N stops after N
cycles. Ctrl-C or SIGTERM stops it cleanly, within 60 seconds. Needs collection trust.
Every watcher also keeps the search cache fresh from file-system notifications (Linux), so
searches, reads and pages need not list the brain. --cache does only that: it runs no
program, needs no trust, prints {"brain","cache":"kept","path"} once commands are answered
by it, and runs until stopped.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&asJSON, "json", false, "print one JSON status line every poll interval")
			fs.BoolVar(&cacheOnly, "cache", false, "only keep the search cache fresh: run no program")
			fs.Float64Var(&interval, "interval", 0, "pause after each cycle, in `seconds` (5-86400)")
			fs.Float64Var(&pollInterval, "poll-interval", 0, "status line interval, in `seconds` (0.2-60)")
			fs.StringVar(&notify, "notify", "", "desktop notifications: off, failure, success or all")
			fs.IntVar(&cycles, "cycles", 0, "stop after `N` cycles (default: run until stopped)")
			fs.Var(&sensors, "sensor", "run only this sensor `N` (repeatable)")
			fs.Var(&routines, "routine", "run only this routine `N` (repeatable)")
			fs.Var(&assistants, "assistant", "run only this assistant `N` (repeatable)")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			switch {
			case len(args) > 0 || len(extra) > 0:
				return cli.Usagef("bf watch takes no arguments (see bf watch --help)")
			case cacheOnly && (asJSON || interval != 0 || pollInterval != 0 || notify != "" || cycles != 0 ||
				len(sensors) > 0 || len(routines) > 0 || len(assistants) > 0):
				return cli.Usagef("bf watch --cache runs no program and prints one line; pass only --brain with it")
			case interval != 0 && (interval < 5 || interval > 86400):
				return cli.Usagef("invalid input: --interval: expected seconds from 5 to 86400")
			case pollInterval != 0 && !(pollInterval >= 0.2 && pollInterval <= 60):
				return cli.Usagef("invalid input: --poll-interval: expected seconds from 0.2 to 60")
			case notify != "" && !contains(config.Notifications, notify):
				return cli.Usagef("invalid input: --notify: expected off, failure, success or all")
			case cycles < 0:
				return cli.Usagef("invalid input: --cycles: expected a positive number of cycles")
			}
			now, err := env.Clock()
			if err != nil {
				return err
			}
			b, err := cli.One(brain.Execution, brainFlag)
			if err != nil {
				return err
			}
			if cacheOnly {
				return keepCache(ctx, env, b)
			}
			for _, c := range []struct {
				names   cli.List
				arg     string
				declare func(string) bool
			}{
				{sensors, "sensor", func(n string) bool { return b.Config.Sensors[n] != nil }},
				{routines, "routine", func(n string) bool { return b.Config.Routines[n] != nil }},
				{assistants, "assistant", func(n string) bool { return b.Config.Assistants[n] != nil }},
			} {
				for _, n := range c.names {
					if !c.declare(n) {
						return cli.Usagef("invalid input: --%s: %s is not declared in bf.yaml; bf status lists what is", c.arg, n)
					}
				}
			}
			trusted, err := brain.System().Trusted(b.Root)
			if err != nil {
				return cli.Classify(err)
			}
			if !trusted {
				return cli.Classify(collect.ErrUntrusted)
			}
			mode := b.Config.Watch.Notifications
			if notify != "" {
				mode = notify
			}
			warn := func(msg string) { fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(msg)) }
			opt := watch.Options{
				Now: now, Interval: seconds(interval), PollInterval: seconds(pollInterval), Cycles: cycles,
				Sensors: sensors, Routines: routines, Assistants: assistants, Warn: warn,
				Notify: watch.NewNotifier(mode, time.Duration(b.Config.Watch.NotificationCooldown)*time.Second),
			}
			if asJSON {
				opt.Lines = func(l watch.Line) { cli.WriteJSON(env.Stdout, l) }
				err = watch.Run(ctx, b, opt)
			} else {
				in, out, ok := watch.Terminal(env.Stdin, env.Stdout)
				if !ok {
					return cli.Usagef("bf watch shows a dashboard on a terminal; use bf watch --json or bf status")
				}
				// A second, interactive watcher observes the one that collects, and
				// collects itself once that one stops.
				err = watch.Interactive(ctx, in, out, opt, func(ctx context.Context, o watch.Options) error {
					err := watch.Run(ctx, b, o)
					if errors.Is(err, watch.ErrOwned) {
						o.Observe, o.TakeOver = true, true
						err = watch.Run(ctx, b, o)
					}
					return err
				})
			}
			if err != nil {
				return cli.Classify(err)
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return nil
		},
	}
	runCmd.ProgramArgs, watchCmd.ProgramArgs = &extra, &extra
	cli.Main(runCmd, watchCmd)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// readStdin reads what bf run --stdin pipes: at most MaxStdin bytes within StdinWait.
func readStdin(r io.Reader) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), StdinWait)
	defer cancel()
	data, err := durable.ReadWithin(ctx, r, MaxStdin)
	var tooLarge *durable.TooLargeError
	switch {
	case err == nil:
		return data, nil
	case errors.As(err, &tooLarge):
		return nil, cli.Usagef("invalid input: stdin: holds more than 1 MiB; pipe less")
	case ctx.Err() != nil:
		return nil, cli.Usagef("invalid input: stdin: did not end within 10 seconds; pipe a finished input or drop --stdin")
	}
	return nil, fmt.Errorf("cannot read stdin: %w", err)
}

// keepCache is bf watch --cache: the brain's cache kept fresh until the watcher is
// stopped, and one line once commands are answered by it.
func keepCache(ctx context.Context, env *cli.Env, b *brain.Brain) error {
	ready := func() {
		cli.WriteJSON(env.Stdout, struct {
			Brain string `json:"brain"`
			Cache string `json:"cache"`
			Path  string `json:"path"`
		}{b.Config.Name, "kept", b.Root})
	}
	if err := keeper.Keep(ctx, b, keeper.Options{Ready: ready}); err != nil {
		return cli.Classify(err)
	}
	return ctx.Err()
}
