// Command bf-channel serves the verbs that use a brain's channels and its durable queue:
// bf channel (send, read or stream through one channel by hand) and bf queue (list, open,
// retry or cancel queued jobs and deliveries).
package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/messaging"
)

func main() {
	var (
		brainFlag     *cli.Optional
		stdin         bool
		since, until  string
		retry, cancel bool
	)
	channelCmd := &cli.Command{
		Name: "channel",
		Usage: `usage: bf channel send NAME --stdin [--brain NAME|PATH]
       bf channel read NAME --since T [--until T] [--brain NAME|PATH]
       bf channel stream NAME [--brain NAME|PATH]

Use one channel of bf.yaml by hand. Needs collection trust: bf register PATH --collect.
send reads {"text","id"?,"conversation"?,"reply_to"?} on stdin, saves the delivery in
the queue (creating an ID when none is given), attempts it once and prints {"attempts",
"channel","id","receipt"?,"state",…}; exits 1 unless delivered. Sending a saved ID again
with the same content returns it without sending again; other content is refused.
read prints the complete batch of [--since, --until) (default --until: now) as
{"channel","messages","notice","since","until"}; it admits nothing and moves no
checkpoint. T is now, today, yesterday, 12h, 7d, 2w, YYYY-MM-DD (local midnight) or an
ISO 8601 time with offset.
stream runs the channel's stream from now until Ctrl-C and prints each message as one
JSON line, acknowledging it once printed; nothing is admitted and no cursor is kept.
Stream errors go to stderr and the stream restarts with backoff.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&stdin, "stdin", false, "send: read the message to send on stdin")
			fs.StringVar(&since, "since", "", "read: window start `T`")
			fs.StringVar(&until, "until", "", "read: window end `T`, exclusive (default: now)")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) != 2 {
				return cli.Usagef("bf channel takes send, read or stream and a channel NAME (see bf channel --help)")
			}
			op, name := args[0], args[1]
			switch {
			case op != "send" && op != "read" && op != "stream":
				return cli.Usagef("bf channel: unknown operation %q; use send, read or stream (see bf channel --help)", op)
			case op == "send" && !stdin:
				return cli.Usagef("bf channel send reads the message on stdin: pass --stdin (see bf channel --help)")
			case op != "send" && stdin:
				return cli.Usagef("--stdin is for bf channel send only (see bf channel --help)")
			case op != "read" && (since != "" || until != ""):
				return cli.Usagef("--since and --until are for bf channel read only (see bf channel --help)")
			}
			b, err := one(brainFlag)
			if err != nil {
				return err
			}
			switch op {
			case "send":
				data, err := messaging.ReadInput(env.Stdin)
				if err != nil {
					return cli.Classify(err)
				}
				res, err := messaging.Send(ctx, b, name, data)
				return output(env, res, err)
			case "read":
				res, err := messaging.Read(ctx, b, name, since, until)
				return output(env, res, err)
			}
			report := func(err error) { fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(err.Error())) }
			return cli.Classify(messaging.Options{}.Stream(ctx, b, name, env.Stdout, report))
		},
	}
	queueCmd := &cli.Command{
		Name: "queue",
		Usage: `usage: bf queue [ID] [--retry | --cancel] [--brain NAME|PATH]

List the jobs and deliveries of the brain's durable queue, oldest first, with their IDs,
states, attempts and errors but no message bodies: {"items":[…]}. bf queue ID opens one
explicitly, with its private text, input or answer and its attempts.
--retry starts its attempts over: a delivery is attempted at once (needs collection
trust) and exits 1 unless delivered; a job waits for a worker. --cancel gives it up,
keeping its ID for 35 days. Both record an attempt whose process died, and refuse while
it still runs.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&retry, "retry", false, "attempt the job or delivery ID again")
			fs.BoolVar(&cancel, "cancel", false, "cancel the job or delivery ID")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			switch {
			case len(args) > 1:
				return cli.Usagef("bf queue takes at most one ID (see bf queue --help)")
			case retry && cancel:
				return cli.Usagef("pass --retry or --cancel, not both (see bf queue --help)")
			case (retry || cancel) && len(args) == 0:
				return cli.Usagef("--retry and --cancel need the ID of a job or delivery (see bf queue --help)")
			}
			b, err := one(brainFlag)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				res, err := messaging.List(ctx, b)
				return output(env, res, err)
			}
			switch id := args[0]; {
			case retry:
				// A *SendReply for a delivery, an *Item for a job, or nil.
				res, err := messaging.Retry(ctx, b, id)
				if res != nil {
					if werr := cli.WriteJSON(env.Stdout, res); werr != nil {
						return werr
					}
				}
				return cli.Classify(err)
			case cancel:
				res, err := messaging.Cancel(ctx, b, id)
				return output(env, res, err)
			default:
				res, err := messaging.Get(ctx, b, id)
				return output(env, res, err)
			}
		},
	}
	cli.Main(channelCmd, queueCmd)
}

// output prints a reply when there is one, even beside an error such as a delivery that
// did not arrive, and returns the error for its exit code.
func output[T any](env *cli.Env, res *T, err error) error {
	if res != nil {
		if werr := cli.WriteJSON(env.Stdout, res); werr != nil {
			return werr
		}
	}
	return cli.Classify(err)
}

// one selects the single brain a command works on: --brain, BF_BRAIN or the enclosing one.
func one(flag *cli.Optional) (*brain.Brain, error) {
	sel, err := cli.Select(brain.Execution, flag)
	if err != nil {
		return nil, err
	}
	return sel.Brains[0], nil
}
