// Command bf-index serves the verbs that work on a brain as a whole: bf validate (check
// every file), bf build (rebuild the search cache), bf eval (run retrieval suites) and
// bf schema (print JSON Schemas).
package main

import (
	"context"
	"errors"
	"flag"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/check"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/eval"
	"github.com/bfgo/bf/libbf/progress"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/schema"
	"github.com/bfgo/bf/libbf/vector"
)

func main() {
	var brainFlag *cli.Optional
	var embed bool
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
	var reproject cli.Optional
	var dryRun bool
	build := &cli.Command{
		Name: "build",
		Usage: `usage: bf build [--embed] [--brain NAME|PATH]
       bf build --reproject SENSOR [--dry-run] [--brain NAME|PATH]

Rebuild the brain's search cache (.bf/index.sqlite) from its files, beside the live one,
then switch to it; searches keep reading the old one meanwhile. An interrupted record
write is recovered first. Prints {"changed":N,"files":N,"removed":N,"skipped":N} and
exits 1 when files were skipped (bf validate says why). On a terminal, a progress line
on stderr shows the files indexed, the rate and the time left.
--reproject applies SENSOR's current field mappings (and the declared fields' defaults)
to the records it stored, without running it: records whose fields change are rewritten
and the cache refreshed. Prints {"sensor","records","changed","unchanged","failed",
"failures"?} (at most 200 failures) and exits 1 on any failure, writing nothing then;
--dry-run writes nothing either.

--embed then gives every chunk of the brain a vector (fused search's dense strategy):
a text whose vector .bf/vectors.sqlite keeps from an earlier pass, rebuilds included, is
reused; the others are sent to the embeddings provider bf.yaml declares, a batch at a
time, each batch kept once received. Adds "chunks" (distinct texts), "embedded" (sent)
and "reused".`,
		Flags: func(fs *flag.FlagSet) {
			fs.BoolVar(&embed, "embed", false, "also compute the dense strategy's chunk vectors")
			brainFlag = cli.BrainFlag(fs)
			fs.Var(&reproject, "reproject", "apply the current field mappings to the stored records of `SENSOR`")
			fs.BoolVar(&dryRun, "dry-run", false, "with --reproject: report what would change, write nothing")
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf build takes no arguments (see bf build --help)")
			}
			if dryRun && !reproject.Given {
				return cli.Usagef("--dry-run goes with --reproject SENSOR (see bf build --help)")
			}
			sel, err := cli.Select(brain.Checks, brainFlag)
			if err != nil {
				return err
			}
			if reproject.Given {
				res, err := collect.Reproject(ctx, sel.Brains[0], reproject.Value, dryRun)
				if res != nil {
					if werr := cli.WriteJSON(env.Stdout, res); werr != nil {
						return werr
					}
				}
				if err != nil {
					return cli.Classify(err)
				}
				if res.Failed > 0 {
					return cli.ErrCheckFailed
				}
				return nil
			}
			res, err := cache.Build(ctx, sel.Brains[0], progress.For(env.Stderr, "indexing", 0))
			if err != nil {
				return err
			}
			var out any = res
			if embed {
				if sel.Brains[0].Config == nil || sel.Brains[0].Config.Embeddings == nil {
					return errors.New("bf.yaml declares no embeddings provider; add embeddings: with url and model, or command")
				}
				rep, err := vector.Embed(ctx, sel.Brains[0])
				if err != nil {
					return err
				}
				out = embedded{res.Changed, rep.Chunks, rep.Embedded, res.Files, res.Removed, rep.Reused, res.Skipped}
			}
			if err := cli.WriteJSON(env.Stdout, out); err != nil {
				return err
			}
			if res.Skipped > 0 {
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	var path, baseline, kind string
	evalCmd := &cli.Command{
		Name: "eval",
		Usage: `usage: bf eval [--path evals] [--baseline FILE] [--brain NAME|PATH]

Run the brain's retrieval suites (evals/*.yaml): each case searches or reads and checks
the refs and text it expects. Prints {"cases":[…],"mrr":…,"passed":…,"score":"P/N"}
and exits 1 when a case fails. --baseline compares with a saved bf eval reply and adds
regressions and improvements.`,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&path, "path", "evals", "a suite file or a folder of suites, inside the brain")
			fs.StringVar(&baseline, "baseline", "", "a saved bf eval reply to compare with")
			brainFlag = cli.BrainFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf eval takes no arguments (see bf eval --help)")
			}
			sel, err := cli.Select(brain.Checks, brainFlag)
			if err != nil {
				return err
			}
			res, err := eval.Run(ctx, eval.Request{Path: path, Baseline: baseline, Brains: sel.Brains, Problems: sel.Problems})
			if err != nil {
				return cli.Classify(err)
			}
			if err := writeReply(env, res); err != nil {
				return err
			}
			if !res.Passed {
				return cli.ErrCheckFailed
			}
			return nil
		},
	}
	schemaCmd := &cli.Command{
		Name: "schema",
		Usage: `usage: bf schema [--kind brain|registry|eval|search-reply|read-reply|collect-reply|update-reply|status-reply|remember-reply|recall-reply|brief-reply|import-reply|ask-reply]

Print a JSON Schema (draft 2020-12): of bf.yaml (brain, the default), the machine
registry, retrieval suites, or the replies of bf search, bf read, bf collect, bf update,
bf status, bf remember, bf recall, bf brief and bf import.`,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&kind, "kind", schema.DefaultKind, "which schema: "+strings.Join(schema.Kinds(), ", "))
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf schema takes no arguments (see bf schema --help)")
			}
			b, err := schema.Get(kind)
			if err != nil {
				return cli.Classify(err)
			}
			_, err = env.Stdout.Write(append(b, '\n'))
			return err
		},
	}
	cli.Main(validate, build, evalCmd, schemaCmd)
}

// writeReply prints a retrieval reply within its byte limit.
func writeReply(env *cli.Env, v any) error {
	b, err := reply.Encode(v)
	if err != nil {
		return err
	}
	_, err = env.Stdout.Write(append(b, '\n'))
	return err
}

// embedded is the reply of bf build --embed: the build's counts with the chunks.
type embedded struct {
	Changed  int `json:"changed"`
	Chunks   int `json:"chunks"`
	Embedded int `json:"embedded"`
	Files    int `json:"files"`
	Removed  int `json:"removed"`
	Reused   int `json:"reused"`
	Skipped  int `json:"skipped"`
}
