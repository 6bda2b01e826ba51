// Command bf-queue serves bf queue: list, open, retry or cancel the jobs and deliveries of a
// brain's durable queue.
package main

import (
	"context"
	"flag"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/messaging"
	"github.com/bfgo/bf/libbf/queue"
)

func main() {
	var (
		brainFlag            *cli.Optional
		retry, cancel, adopt bool
		filter               messaging.Filter
		state                string
		confirm              int
	)
	queueCmd := &cli.Command{
		Name: "queue",
		Usage: `usage: bf queue [ID] [--retry | --cancel] [--brain NAME|PATH]
       bf queue --cancel [--assistant NAME] [--channel NAME] [--state STATE] [--confirm N]
       bf queue --adopt [--brain NAME|PATH]

List the jobs and deliveries of the brain's durable queue, oldest first, with their IDs,
states, attempts and errors but no message bodies: {"items":[…]}. bf queue ID opens one
explicitly, with its private text, input or answer and its attempts.
--retry starts its attempts over: a delivery is attempted at once (needs collection
trust) and exits 1 unless delivered; a job waits for a worker. --cancel gives it up,
keeping its ID for 35 days. Both record an attempt whose process died, and refuse while
it still runs.
--cancel without an ID selects every unresolved job and delivery matching --assistant,
--channel and --state: alone it counts them, {"cancelled":[],"matched":N,"skipped":[]};
with --confirm N, N being that count, it cancels them in one commit and lists those it
skipped because their attempt still runs.
--adopt takes over a queue holding unresolved work of the brain at a path that is gone
(moved here, or deleted with this new brain on its inode), so it can be retried or
cancelled here: {"items":[…],"previous":{"path","name"}}.`,
		Flags: func(fs *flag.FlagSet) {
			brainFlag = cli.BrainFlag(fs)
			fs.BoolVar(&retry, "retry", false, "attempt the job or delivery ID again")
			fs.BoolVar(&cancel, "cancel", false, "cancel the job or delivery ID")
			fs.BoolVar(&adopt, "adopt", false, "take over the queue of the brain that was at a path now gone")
			fs.StringVar(&filter.Assistant, "assistant", "", "bulk --cancel: the jobs of assistant `NAME`")
			fs.StringVar(&filter.Channel, "channel", "", "bulk --cancel: the work of channel `NAME`")
			fs.StringVar(&state, "state", "", "bulk --cancel: the work in `STATE` (pending, running, answered, sending, failed, uncertain)")
			fs.IntVar(&confirm, "confirm", -1, "bulk --cancel: cancel the `N` items counted")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			switch {
			case len(args) > 1:
				return cli.Usagef("bf queue takes at most one ID (see bf queue --help)")
			case retry && cancel:
				return cli.Usagef("pass --retry or --cancel, not both (see bf queue --help)")
			case retry && len(args) == 0:
				return cli.Usagef("--retry and --cancel need the ID of a job or delivery (see bf queue --help)")
			case cancel && len(args) == 0 && filter == messaging.Filter{} && state == "":
				return cli.Usagef("--cancel needs the ID of a job or delivery, or --assistant, --channel or --state to select work (see bf queue --help)")
			case (filter != messaging.Filter{} || state != "" || confirm >= 0) && (!cancel || len(args) > 0):
				return cli.Usagef("--assistant, --channel, --state and --confirm select work for --cancel without an ID (see bf queue --help)")
			case adopt && (retry || cancel || len(args) > 0):
				return cli.Usagef("--adopt takes no ID, --retry or --cancel (see bf queue --help)")
			}
			// Listing, opening, cancelling and retrying a job run no program, so they
			// work while bf.yaml does not load; a delivery retry refuses then.
			b, err := cli.OneUnloaded(brain.Execution, brainFlag)
			if err != nil {
				return err
			}
			if cancel && len(args) == 0 {
				filter.State = queue.State(state)
				res, err := messaging.CancelAll(ctx, b, filter, confirm)
				return cli.Output(env, res, err)
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
				res, err := messaging.Retry(ctx, b, id)
				return cli.Output(env, res, err)
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
