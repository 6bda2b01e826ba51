// Command bf-queue serves bf queue: list, open, retry or cancel the jobs and deliveries of a
// brain's durable queue.
package main

import (
	"context"
	"flag"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/messaging"
)

func main() {
	var (
		brainFlag            *cli.Optional
		retry, cancel, adopt bool
	)
	queueCmd := &cli.Command{
		Name: "queue",
		Usage: `usage: bf queue [ID] [--retry | --cancel] [--brain NAME|PATH]
       bf queue --adopt [--brain NAME|PATH]

List the jobs and deliveries of the brain's durable queue, oldest first, with their IDs,
states, attempts and errors but no message bodies: {"items":[…]}. bf queue ID opens one
explicitly, with its private text, input or answer and its attempts.
--retry starts its attempts over: a delivery is attempted at once (needs collection
trust) and exits 1 unless delivered; a job waits for a worker. --cancel gives it up,
keeping its ID for 35 days. Both record an attempt whose process died, and refuse while
it still runs.
--adopt takes over a queue holding unresolved work of the brain at a path that is gone
(moved here, or deleted with this new brain on its inode), so it can be retried or
cancelled here: {"items":[…],"previous":{"path","name"}}.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&retry, "retry", false, "attempt the job or delivery ID again")
			fs.BoolVar(&cancel, "cancel", false, "cancel the job or delivery ID")
			fs.BoolVar(&adopt, "adopt", false, "take over the queue of the brain that was at a path now gone")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			switch {
			case len(args) > 1:
				return cli.Usagef("bf queue takes at most one ID (see bf queue --help)")
			case retry && cancel:
				return cli.Usagef("pass --retry or --cancel, not both (see bf queue --help)")
			case (retry || cancel) && len(args) == 0:
				return cli.Usagef("--retry and --cancel need the ID of a job or delivery (see bf queue --help)")
			case adopt && (retry || cancel || len(args) > 0):
				return cli.Usagef("--adopt takes no ID, --retry or --cancel (see bf queue --help)")
			}
			// Listing, opening, cancelling and retrying a job run no program, so they
			// work while bf.yaml does not load; a delivery retry refuses then.
			b, err := cli.OneUnloaded(brain.Execution, brainFlag)
			if err != nil {
				return err
			}
			if adopt {
				res, err := messaging.Takeover(ctx, b)
				return cli.Output(env, res, err)
			}
			if len(args) == 0 {
				res, err := messaging.List(ctx, b)
				return cli.Output(env, res, err)
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
				return cli.Output(env, res, err)
			default:
				res, err := messaging.Get(ctx, b, id)
				return cli.Output(env, res, err)
			}
		},
	}
	cli.Main(queueCmd)
}
