// Command bf-collect serves the verbs that run a brain's programs and report on them:
// bf collect (one sensor now), bf update (every due sensor and routine, then the cache)
// and bf status (freshness, failures and attention, without running anything).
package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/status"
	"github.com/bfgo/bf/libbf/update"
	"github.com/bfgo/bf/libbf/watch"
)

func main() {
	var (
		brainFlag                 *cli.Optional
		since, until              string
		dryRun, allowRemoval, chk bool
		watching                  bool
		sensors, routines         cli.List
	)
	collectCmd := &cli.Command{
		Name: "collect",
		Usage: `usage: bf collect SENSOR [--since T] [--until T] [--dry-run] [--allow-removal] [--brain NAME|PATH]

Run one sensor of bf.yaml now, whatever its refresh, over [--since, --until) (default:
its lookback up to now), check its whole output, then store the records in
memories/SENSOR/ and refresh the search cache. T is now, today, yesterday, 12h, 7d, 2w,
YYYY-MM-DD (local midnight) or an ISO 8601 time with offset. Needs collection trust:
bf register PATH --collect. Prints {"sensor","records","added","updated","unchanged",
"removed"}; --dry-run stores nothing and prints up to 3 "samples". A snapshot sensor may
not remove more than half of a source's records unless --allow-removal is given.
Exits 1 when the sensor fails; nothing is written then, and the error names its log.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.StringVar(&since, "since", "", "window start `T` (default: lookback before now)")
			fs.StringVar(&until, "until", "", "window end `T`, exclusive (default: now)")
			fs.BoolVar(&dryRun, "dry-run", false, "run the sensor and check its output; store nothing")
			fs.BoolVar(&allowRemoval, "allow-removal", false, "let a snapshot remove more than half of the source's records")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("bf collect takes one SENSOR (see bf collect --help)")
			}
			b, err := cli.One(brain.Execution, brainFlag)
			if err != nil {
				return err
			}
			res, err := collect.Collect(ctx, b, args[0], collect.Options{
				Since: since, Until: until, DryRun: dryRun, AllowRemoval: allowRemoval,
			})
			if res != nil {
				if werr := cli.WriteJSON(env.Stdout, res); werr != nil {
					return werr
				}
			}
			return cli.Classify(err)
		},
	}
	updateCmd := &cli.Command{
		Name: "update",
		Usage: `usage: bf update [--sensor NAME]… [--routine NAME]… [--dry-run] [--brain NAME|PATH]

Run the brain's due sensors, then its due routines, then refresh the search cache, then
one pass over its assistants (due schedules, wakes and reads, queued jobs, deliveries). A
program is due when it has a refresh and its last success is older than that; --sensor
and --routine narrow the choice but never force a run. A failing program never stops the
others. Skips a brain not trusted to collect here (bf register PATH --collect).
--dry-run runs nothing and lists what is due with its window, and the manual programs.
Then, when bf.yaml declares an embeddings provider, gives the chunks a vector (fused
search's dense strategy): those .bf/vectors.sqlite keeps are reused, the others sent;
"embeddings" counts the "chunks", the texts "embedded" and those "reused".
Prints {"brains":[…],"dry_run":…,"ok":…} and exits 1 when anything failed.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.Var(&sensors, "sensor", "consider only this sensor `NAME` (repeatable)")
			fs.Var(&routines, "routine", "consider only this routine `NAME` (repeatable)")
			fs.BoolVar(&dryRun, "dry-run", false, "run nothing; list the due programs and their windows")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf update takes no arguments (see bf update --help)")
			}
			b, err := cli.One(brain.Execution, brainFlag)
			if err != nil {
				return err
			}
			res, err := update.Run(ctx, b, collect.Options{DryRun: dryRun, Sensors: sensors, Routines: routines})
			if err != nil {
				return cli.Classify(err)
			}
			if res.EmbedErr != nil {
				fmt.Fprintln(env.Stderr, "bf: embeddings: "+cli.Escape(res.EmbedErr.Error()))
			}
			if err := cli.WriteJSON(env.Stdout, res.Reply); err != nil {
				return err
			}
			if res.Failed() {
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	statusCmd := &cli.Command{
		Name: "status",
		Usage: `usage: bf status [--check | --watch] [--brain NAME|PATH]

Report each brain's search cache, sources and routines: records, freshness (fresh,
overdue, never, manual, unknown), collected window, last run and error with its log, and
the programs that need attention. Runs nothing and contacts no provider. Without
--brain: every registered brain, or the enclosing one.
--check exits 1 unless everything is healthy: no scheduled program failed, is overdue or
never succeeded, every cache is ready, and messaging (channels and the queue) holds no
failed or uncertain work and no queue problem.
--watch shows one brain's programs on a terminal dashboard, reread every poll interval;
it only observes (it runs nothing, even when no watcher collects): q quits.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&chk, "check", false, "exit 1 unless every brain is healthy")
			fs.BoolVar(&watching, "watch", false, "observe one brain's programs on a terminal dashboard")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf status takes no arguments (see bf status --help)")
			}
			if watching && chk {
				return cli.Usagef("invalid input: --watch observes on a terminal and --check answers once; pass one of them")
			}
			sel, err := cli.Select(brain.Retrieval, brainFlag)
			if err != nil {
				return err
			}
			if watching {
				in, out, ok := watch.Terminal(env.Stdin, env.Stdout)
				switch {
				case !ok:
					return cli.Usagef("bf status --watch shows a dashboard on a terminal; run bf status, or bf watch --json")
				case len(sel.Brains) != 1:
					return cli.Usagef("invalid input: --watch observes one brain; pass --brain NAME|PATH")
				}
				b := sel.Brains[0]
				// Observation only: the watcher rereads bf.yaml, the history and the queue, and
				// never runs a program.
				err := watch.Interactive(ctx, in, out, watch.Options{Observe: true}, func(ctx context.Context, o watch.Options) error {
					return watch.Run(ctx, b, o)
				})
				if err != nil {
					return cli.Classify(err)
				}
				return ctx.Err()
			}
			res, err := status.Status(ctx, sel.Brains, status.Options{Problems: sel.Problems, Messaging: messaging.Block})
			if err != nil {
				return cli.Classify(err)
			}
			if err := cli.WriteJSON(env.Stdout, res); err != nil {
				return err
			}
			if chk && !res.Check() {
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	cli.Main(collectCmd, updateCmd, statusCmd)
}
