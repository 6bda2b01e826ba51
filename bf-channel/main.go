// Command bf-channel serves bf channel: send, read or stream through one of a brain's
// channels by hand. bf queue, which lists and retries what channels left queued, is bf-queue.
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
		brainFlag    *cli.Optional
		stdin        bool
		since, until string
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
			b, err := cli.One(brain.Execution, brainFlag)
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
				return cli.Output(env, res, err)
			case "read":
				res, err := messaging.Read(ctx, b, name, since, until)
				return cli.Output(env, res, err)
			}
			report := func(err error) { fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(err.Error())) }
			return cli.Classify(messaging.Messenger{}.Stream(ctx, b, name, env.Stdout, report))
		},
	}
	cli.Main(channelCmd)
}
