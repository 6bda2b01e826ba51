// Command bf-search serves bf search: ranked word, identity and tag search over the
// selected brains, printed as one JSON reply.
package main

import (
	"context"
	"flag"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/progress"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
	"github.com/bfgo/bf/libbf/vector"
)

const usage = `usage: bf search QUERY [--scope SCOPE] [--limit N] [--offset N] [--format json|md|refs] [--brain NAME|PATH]
       bf search --fused QUERY [--archived] [--trust reviewed|unreviewed] [--all] [...]

Search notes and records. QUERY holds words, "quoted phrases" and prefix* words
(case, accents and word endings do not matter), or one exact identity such as
repo:github.com/owner/name, or a tag address bf://NAME/tags/LABEL. Several words
given as separate arguments form one query.

Prints one JSON reply (--format md: the same reply as Markdown to read; --format refs:
one ref per line): items with refs to pass to bf read, best first (several
brains alternate by their own rank), and when they apply next_offset (repeat the
same search with --offset N), unmatched words and suggestions, identity
"unknown", the collection coverage of sources, problems and stale brains.

Scopes: a folder or whole note (projects, projects/new-website.md); a source,
optionally a period, undated records or one record file (memories/brief,
memories/brief/7d, memories/brief/undated, memories/brief/FILE); a period of
local time (today, yesterday, 12h, 7d, 2w, 2026-09-27, 2026-09,
2026-09-21..2026-09-25); an identity (repo:github.com/owner/name) or a tag
address (bf://NAME/tags/LABEL).

--explain adds to every item why it ranks there: its rank, score, matched terms
and penalties. --fused combines four strategies (lexical, dense, graph, recency)
by rank with weights chosen by the query's class, explains every item, puts a
superseded note's successor in its place (--all keeps both), and leaves out
archived and deprecated notes (--archived returns them), notes marked
review: unreviewed (--trust unreviewed returns them) and anything reached only
through an unconfirmed edge. See docs/search.md.

Exit status: 0 success, 1 failure, 2 invalid input.`

func main() {
	var (
		brainFlag *cli.Optional
		scope     string
		limit     int
		offset    cli.Offset
		explain   bool
		fused     bool
		archived  bool
		all       bool
		trust     cli.Optional
		format    *cli.Format
	)
	cmd := &cli.Command{
		Name:  "search",
		Usage: usage,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&scope, "scope", "", "search only within `SCOPE` (see above)")
			fs.IntVar(&limit, "limit", search.DefaultLimit, "at most `N` results per page, 1 to 50")
			fs.Var(&offset, "offset", "continue at a reply's next_offset `N`")
			fs.BoolVar(&explain, "explain", false, "explain why each item ranks where it does")
			fs.BoolVar(&fused, "fused", false, "fuse lexical, dense, graph and recency strategies by rank")
			fs.BoolVar(&archived, "archived", false, "fused: also return archived and deprecated notes")
			fs.BoolVar(&all, "all", false, "fused: keep superseded notes at their own rank")
			fs.Var(&trust, "trust", "fused: trust floor, `reviewed` (default) or unreviewed")
			brainFlag = cli.BrainFlag(fs)
			format = cli.FormatFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) == 0 {
				return cli.Usagef("bf search takes a QUERY (see bf search --help)")
			}
			if limit == 0 {
				return cli.Usagef("%s", (&search.InputError{Argument: "limit", Err: search.ErrLimit}).Error())
			}
			req := search.Request{Query: strings.Join(args, " "), Scope: scope, Limit: limit, Offset: int64(offset)}
			// Invalid input fails before any brain is read.
			if err := search.Check(req); err != nil {
				return classify(err)
			}
			if !fused {
				for _, f := range []struct {
					name string
					set  bool
				}{{"archived", archived}, {"all", all}, {"trust", trust.Given}} {
					if f.set {
						return cli.Usagef("--%s applies to fused search; add --fused", f.name)
					}
				}
			}
			if trust.Given {
				if err := fuse.CheckTrust(trust.Value); err != nil {
					return classify(err)
				}
			}
			freq := fuse.Request{Archived: archived, All: all, Trust: trust.Value}
			sel, err := cli.Select(brain.Retrieval, brainFlag)
			if err != nil {
				return err
			}
			req.Brains, req.Problems = sel.Brains, sel.Problems
			// A first search may index many files: show it on a terminal. A search amid a
			// build leaves the build the CPU.
			ctx = cache.WithProgress(cache.YieldToBuilds(ctx), progress.For(env.Stderr, "indexing", progress.Refresh))
			var res *search.Reply
			switch {
			case fused:
				freq.Search, freq.Dense = req, vector.Dense
				res, err = fuse.Run(ctx, freq)
			case explain:
				res, err = fuse.Explain(ctx, req)
			default:
				res, err = search.Run(ctx, req)
			}
			if err != nil {
				return classify(err)
			}
			b, err := reply.Encode(res)
			if err != nil {
				return err
			}
			return cli.WriteReply(env.Stdout, *format, b)
		},
	}
	cli.Main(cmd)
}

// classify makes invalid input exit 2.
func classify(err error) error {
	if search.IsInput(err) {
		return &cli.UsageError{Err: err}
	}
	return cli.Classify(err)
}
