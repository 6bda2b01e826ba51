// Command bf-index serves the verbs that check a brain as a whole: bf validate.
package main

import (
	"context"
	"flag"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/check"
	"github.com/bfgo/bf/libbf/cli"
)

func main() {
	var brainFlag *cli.Optional
	validate := &cli.Command{
		Name: "validate",
		Usage: `usage: bf validate [--brain NAME|PATH]

Check bf.yaml, every note and record, links, relations, identities and programs.
Changes nothing. Prints {"notes":N,"problems":[…],"records":N,"valid":…,"warnings":[…]}
and exits 1 when there are problems; warnings never fail the check.`,
		Flags: func(fs *flag.FlagSet) { brainFlag = cli.BrainFlag(fs) },
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf validate takes no arguments (see bf validate --help)")
			}
			sel, err := cli.Select(brain.Checks, brainFlag)
			if err != nil {
				return err
			}
			report, err := check.Brain(sel.Brains[0], sel.Problems)
			if err != nil {
				return err
			}
			if err := cli.WriteJSON(env.Stdout, report); err != nil {
				return err
			}
			if !report.Valid {
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	cli.Main(validate)
}
