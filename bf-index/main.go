// Command bf-index serves the verbs that work on a brain as a whole: bf build (rebuild the
// search cache) and bf validate (check every file).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
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
	build := &cli.Command{
		Name: "build",
		Usage: `usage: bf build [--brain NAME|PATH]

Rebuild the brain's search cache (.bf/index.sqlite) from its files, beside the live one,
then switch to it; searches keep reading the old one meanwhile. An interrupted record
write is recovered first. Prints {"changed":N,"files":N,"removed":N,"skipped":N} and
exits 1 when files were skipped (bf validate says why).`,
		Flags: func(fs *flag.FlagSet) { brainFlag = cli.BrainFlag(fs) },
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf build takes no arguments (see bf build --help)")
			}
			sel, err := cli.Select(brain.Checks, brainFlag)
			if err != nil {
				return err
			}
			res, err := cache.Build(ctx, sel.Brains[0], progress(env.Stderr))
			if err != nil {
				return err
			}
			if err := cli.WriteJSON(env.Stdout, res); err != nil {
				return err
			}
			if res.Skipped > 0 {
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	cli.Main(validate, build)
}

// progress reports a build's progress on one rewritten line, only when stderr is a terminal:
// logs and pipes get the final JSON and nothing else.
func progress(w io.Writer) func(done, total int) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) {
		fmt.Fprintf(w, "\rbf: indexed %d of %d files", done, total)
		if done == total {
			fmt.Fprint(w, "\r\033[K")
		}
	}
}
