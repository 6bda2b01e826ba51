// Command bf-read serves bf read: computed pages, exact reads of notes, sections, records
// and identities with their backlinks and claims, and relation pages, printed as one JSON
// reply.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/export"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/reply"
)

const usage = `usage: bf read [REF] [--rel RELATION] [--offset N] [--format json|md|refs] [--brain NAME|PATH]

Read a page, a note, a section, a record or an identity. Without REF, reads the
home page.

REF is a page (projects, concepts, actions or a subfolder, tasks, tags,
tags/LABEL, memories, memories/SOURCE[/PERIOD|/undated|/FILE], a period such as
today, 7d, 2026-09-27, 2026-09 or 2026-09-21..2026-09-25, an action folder
actions/YYYY-MM-DD_topic), a note (projects/new-website.md), a section
(projects/new-website.md#decision), a record SOURCE:ID exactly as returned, an
identity (repo:github.com/owner/name), or a bf://NAME/... address, which reads
in that selected brain only (write # and ? in a record id as %23 and %3F there).

--rel lists every item linking to REF through RELATION (links, cites or a
relation a selected brain declares, with its narrower relations), newest first.

Prints one JSON reply (--format md: the same reply as Markdown to read; --format
refs: the refs of its items, or its own, one per line). Large exact reads return
their text in pages: repeat the read with --offset next_offset while it is
present, and check that sha256 stays the same. Check problems and stale before concluding something is absent.

Exit status: 0 success, 1 failure or not found, 2 invalid input.`

func main() {
	var (
		brainFlag *cli.Optional
		rel       string
		offset    cli.Offset
		format    *cli.Format
	)
	cmd := &cli.Command{
		Name:  "read",
		Usage: usage,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&rel, "rel", "", "list the items linking to REF through `RELATION`")
			fs.Var(&offset, "offset", "continue at a reply's next_offset `N`")
			brainFlag = cli.BrainFlag(fs)
			format = cli.FormatFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 1 {
				return cli.Usagef("bf read takes at most one REF (see bf read --help)")
			}
			req := read.Request{Rel: rel, Offset: int64(offset)}
			if len(args) == 1 {
				req.Ref = args[0]
			}
			// Invalid refs and offsets fail before any brain is read.
			if err := read.Check(req); err != nil && !isRel(err) {
				return cli.Classify(err)
			}
			sel, err := cli.Select(brain.Retrieval, brainFlag)
			if err != nil {
				return err
			}
			req.Brains, req.Problems = sel.Brains, sel.Problems
			res, err := read.Run(cache.YieldToBuilds(ctx), req) // a read amid a build leaves the build the CPU
			if err != nil {
				return cli.Classify(err)
			}
			b, err := reply.Encode(res)
			if err != nil {
				return err
			}
			return cli.WriteReply(env.Stdout, *format, b)
		},
	}
	cli.Main(cmd, exportCommand())
}

// isRel reports an unknown relation, which only the selected brains can settle.
func isRel(err error) bool {
	var ie *reply.InputError
	return errors.As(err, &ie) && ie.Argument == "rel"
}

func exportCommand() *cli.Command {
	var (
		brainFlag   *cli.Optional
		kind, scope string
	)
	return &cli.Command{
		Name: "export",
		Usage: `usage: bf export [--kind items|edges|identities] [--scope SCOPE] [--brain NAME|PATH]

Print the brain as JSON Lines, one compact object per line, for jq, DuckDB and scripts:
items (notes and records), edges (every claim and link, typed or not) or identities
(entities, aliases and resources with their owners). Rows stream in brain and ref order.
SCOPE is a folder or note, memories, memories/SOURCE[/PERIOD|/undated|/FILE] or a period.

Exit status: 0 success, 1 failure or an incomplete export (the rows written are still
valid; each problem is named on stderr), 2 invalid input.`,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&kind, "kind", "items", "what to export: items, edges or identities")
			fs.StringVar(&scope, "scope", "", "export only within `SCOPE`")
			brainFlag = cli.BrainFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf export takes no arguments (see bf export --help)")
			}
			req := export.Request{Kind: kind, Scope: scope}
			if err := export.Check(req); err != nil {
				return cli.Classify(err)
			}
			sel, err := cli.Select(brain.Retrieval, brainFlag)
			if err != nil {
				return err
			}
			req.Brains, req.Problems = sel.Brains, sel.Problems
			w := bufio.NewWriter(env.Stdout)
			err = export.Write(ctx, w, req)
			if ferr := w.Flush(); err == nil {
				err = ferr
			}
			var inc *export.IncompleteError
			if errors.As(err, &inc) {
				for _, p := range inc.Problems {
					fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(problemText(p)))
				}
				for _, name := range inc.Stale {
					fmt.Fprintln(env.Stderr, "bf: "+name+": served from the previous cache while another process holds the brain")
				}
				return cli.ErrCheckFailed
			}
			return cli.Classify(err)
		},
	}
}

// problemText prints a reply problem as one diagnostic: brain, file, then the error.
func problemText(p reply.Problem) string {
	s := p.Error
	if p.File != "" {
		s = p.File + ": " + s
	}
	if p.Brain != "" {
		s = p.Brain + ": " + s
	}
	return s
}
