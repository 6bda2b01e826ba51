// Command bf-ask serves bf ask: a grounded answer to a question from the brain, through
// the model bf.yaml declares, with block-level citations, printed as one JSON reply.
package main

import (
	"context"
	"errors"
	"flag"
	"strings"

	"github.com/bfgo/bf/libbf/ask"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
)

const usage = `usage: bf ask QUESTION [--scope SCOPE] [--brain NAME|PATH]

Answer a question from the brain through the model declared under ask: in bf.yaml.
Fused search retrieves what the scope allows (see bf search --help for scopes); the
retrieved text is redacted whole for secrets (key blocks, passwords, tokens, API and
cloud keys, credentials in URLs, long random strings; docs/ask.md lists the rules), then
cut into blocks, fenced as data and sent to the model in one call. Only what no person
needs to confirm is retrieved: agents' unreviewed notes and records collection did not
write stay out. The answer must cite
the ids of retrieved blocks: one citing anything else is rejected.

Prints {"answer":…,"citations":[{"block","excerpt","ref"}],"notice":…} and, when
secrets were replaced, "redacted". At most 20 questions a minute per user on this
machine, shared with the MCP ask tool.

Exit status: 0 success, 1 failure (no model configured, allowance spent, answer
rejected), 2 invalid input.`

func main() {
	var (
		brainFlag *cli.Optional
		scope     string
	)
	cmd := &cli.Command{
		Name:  "ask",
		Usage: usage,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&scope, "scope", "", "retrieve only within `SCOPE`")
			brainFlag = cli.BrainFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("bf ask takes a QUESTION (see bf ask --help)")
			}
			req := ask.Request{Question: strings.Join(args, " "), Scope: scope}
			if err := ask.Check(req); err != nil {
				return &cli.UsageError{Err: err}
			}
			sel, err := cli.Select(brain.Retrieval, brainFlag)
			if err != nil {
				return err
			}
			if len(sel.Brains) != 1 {
				return cli.Usagef("bf ask answers from one brain; name it with --brain")
			}
			state, err := brain.System().StateDir()
			if err != nil {
				return err
			}
			req.Brain, req.StateDir = sel.Brains[0], state
			res, err := ask.Ask(ctx, req)
			if err != nil {
				var le *ask.LimitError
				if errors.As(err, &le) || errors.Is(err, ask.ErrNoModel) || errors.Is(err, ask.ErrUntrusted) {
					return err
				}
				return cli.Classify(err)
			}
			return cli.WriteJSON(env.Stdout, res)
		},
	}
	cli.Main(cmd)
}
