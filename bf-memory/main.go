// Command bf-memory serves agent memory: bf remember, recall, brief, verify, review,
// forget and scope. Run directly, its first argument is the verb (bf-memory recall …).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cli"
	"github.com/bfgo/bf/libbf/memory"
)

func main() {
	cli.Main(commands()...)
}

func commands() []*cli.Command {
	return []*cli.Command{recallCmd(), rememberCmd(), briefCmd(), verifyCmd(), reviewCmd(), forgetCmd(), scopeCmd()}
}

// open selects the one brain a memory verb works on, with the clock BF_NOW may pin.
func open(env *cli.Env, flag *cli.Optional) (*memory.Store, error) {
	now, err := env.Clock()
	if err != nil {
		return nil, err
	}
	sel, err := cli.Select(brain.Checks, flag)
	if err != nil {
		return nil, err
	}
	return &memory.Store{Brain: sel.Brains[0], Now: now}, nil
}

// classify maps libbf errors to exit codes; a guard's refusal prints its JSON first.
func classify(env *cli.Env, err error) error {
	if r, ok := memory.IsRefusal(err); ok {
		if werr := cli.WriteJSON(env.Stdout, map[string]any{"refused": r}); werr != nil {
			return werr
		}
		return &cli.UsageError{Err: err}
	}
	return cli.Classify(err)
}

func cwd() string {
	d, err := os.Getwd()
	if err != nil {
		return ""
	}
	return d
}

func rememberCmd() *cli.Command {
	var (
		brainFlag *cli.Optional
		req       memory.RememberRequest
		bodyFile  string
	)
	return &cli.Command{
		Name: "remember",
		Usage: `usage: bf remember --type TYPE --title TITLE --body TEXT|-|--body-file PATH [--scope S] [--importance N]
       [--confidence C] [--trust T] [--source TEXT|--ref REF] [--supersedes REF [--fork-ok] [--narrow-ok]] [--update]
       [--allow-duplicate] [--pin] [--review DATE|--no-review] [--reviewed] [--brain NAME|PATH]

Save a memory as a note under concepts/memory/. What is saved counts as an agent's and
stays unreviewed (out of fused search, bf ask and MCP resources) until a person accepts it
with bf review --accept REF; a person saving a memory themselves passes --reviewed. A memory is identified by its scope and
its title (case and spacing evened out): saving the same title again updates it, and a
different body needs --update (the old body is kept in history) or --supersedes. A title
of five or more words sharing half its words with a stored one is refused as a duplicate.
A correction (--supersedes) takes over the old memory's identity: a later save of the old
title reaches the correction, and the old body saved again is refused as withdrawn. It
inherits the pin and the higher importance (unless --importance), and must reach every
scope the old one did (--narrow-ok to withdraw it from the scopes it leaves).
Types: policy, constraint, decision, incident (tier A, never fade); gotcha, infra, access,
fact (B, half-life 180 days); preference, relationship (C, 90 days); state (D, 4 days).
Prints {"action","ref","said":[…],…}; a refused save prints {"refused":{…}} and exits 2.`,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&req.Type, "type", "", "the memory `TYPE`: it sets how fast the memory fades")
			fs.StringVar(&req.Title, "title", "", "one line naming the fact")
			fs.StringVar(&req.Body, "body", "", "the fact and the reasoning nobody wrote down; - reads it from stdin")
			fs.StringVar(&bodyFile, "body-file", "", "read the body from the file `PATH`")
			fs.StringVar(&req.Scope, "scope", "", "where it applies: global (default) or a colon path such as channel:deploy")
			fs.IntVar(&req.Importance, "importance", 0, "1 (minor) to 5 (critical); default 3")
			fs.StringVar(&req.Confidence, "confidence", "", "confirmed (needs --source or --ref), reported (default) or uncertain; high, medium, low")
			fs.StringVar(&req.Trust, "trust", "", "where it came from: stated (default: this project's own work), imported or external")
			fs.StringVar(&req.Source, "source", "", "where it was checked, or \"stated by the user\"")
			fs.StringVar(&req.Ref, "ref", "", "a reference backing it: URL, file, record")
			fs.StringVar(&req.Supersedes, "supersedes", "", "the `REF` of the memory this one corrects")
			fs.BoolVar(&req.ForkOK, "fork-ok", false, "supersede a memory another correction already replaced")
			fs.BoolVar(&req.NarrowOK, "narrow-ok", false, "correct a memory from a narrower scope: recall elsewhere loses the old fact")
			fs.BoolVar(&req.Update, "update", false, "replace the body of the memory with this title")
			fs.BoolVar(&req.AllowDuplicate, "allow-duplicate", false, "store it although a stored title overlaps")
			fs.BoolVar(&req.Pin, "pin", false, "pin it: in every brief")
			fs.StringVar(&req.Review, "review", "", "the `DATE` (YYYY-MM-DD) to check it again")
			fs.BoolVar(&req.NoReview, "no-review", false, "no review date, for a permanent fact")
			fs.BoolVar(&req.Reviewed, "reviewed", false, "you, a person, state this memory: it is trusted at once (without it, a save is an agent's and unreviewed)")
			brainFlag = cli.BrainFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("bf remember takes flags only; quote the title and body (see bf remember --help)")
			}
			body, err := memory.BodyFrom(env.Stdin, req.Body, bodyFile)
			if err != nil {
				return cli.Classify(err)
			}
			req.Body, req.Repo = body, cwd()
			return answer(env, brainFlag, func(s *memory.Store) (*memory.RememberReply, error) { return s.Remember(ctx, req) })
		},
	}
}

func recallCmd() *cli.Command {
	var (
		brainFlag *cli.Optional
		req       memory.RecallRequest
		hook      string
		timeout   int
		types     string
	)
	return &cli.Command{
		Name: "recall",
		Usage: `usage: bf recall [QUERY] [--scope S] [--type T,…] [--order score|importance] [--offset N] [--limit N]
       [--all] [--no-touch] [--brain NAME|PATH]
       bf recall --hook user-prompt [--timeout N] < HOOK.json

Rank the memories visible from a scope (its own level and every level above it). With a
QUERY, memories holding most of its words rank by
  relevance × coverage × recency × stakes × scope;
without one, every visible memory is listed and pins count double. Superseded memories
are replaced by their current version unless --all. --type keeps only those types;
--order importance lists the most important first, then the newest: the brief's order,
so the command the brief prints for the rules it left out lists exactly those. A page holds --limit memories from --offset; next_offset is the next page's. Every
recall counts as a use of what it returns unless --no-touch. With --hook user-prompt it
reads the host's UserPromptSubmit JSON on stdin and prints what the host adds to the
prompt; a hook exits 0 whatever goes wrong, prints {} (nothing added) and says why on one
stderr line.`,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&req.Scope, "scope", "", "ask in this `SCOPE`: 1.6 there, 0.25 less per level up, never below 0.8")
			fs.BoolVar(&req.All, "all", false, "also list superseded versions")
			fs.BoolVar(&req.NoTouch, "no-touch", false, "do not count this recall as a use")
			fs.IntVar(&req.Limit, "limit", memory.DefaultLimit, "at most `N` memories, 1 to 50")
			fs.IntVar(&req.Offset, "offset", 0, "skip the first `N` memories ranked (a reply's next_offset)")
			fs.StringVar(&types, "type", "", "keep only memories of these `TYPES`, comma-separated, such as policy,constraint")
			fs.StringVar(&req.Order, "order", memory.OrderScore, "score (the formula) or importance (most important first, then newest)")
			fs.StringVar(&hook, "hook", "", "read a host hook event on stdin: user-prompt")
			fs.IntVar(&timeout, "timeout", memory.DefaultHookSeconds, "with --hook: give up and add nothing after `N` seconds, 1 to 600")
			brainFlag = cli.BrainFlag(fs)
		},
		Refused: refusedHook(memory.EventUserPrompt),
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if hook != "" {
				return runHook(ctx, env, memory.HookCall{Name: hook, Event: memory.EventUserPrompt, Scope: req.Scope}, brainFlag, timeout)
			}
			if timeout != memory.DefaultHookSeconds {
				return cli.Usagef("invalid input: --timeout: applies only with --hook")
			}
			req.Query = strings.Join(args, " ")
			req.Types = memory.ParseTypes(types)
			req.Repo = cwd()
			return answer(env, brainFlag, func(s *memory.Store) (*memory.RecallReply, error) { return s.Recall(ctx, req) })
		},
	}
}

// runHook answers a host's hook event. A hook exits 0 whatever its input or the brain's
// state: what went wrong is one line on stderr and the host adds nothing.
func runHook(ctx context.Context, env *cli.Env, call memory.HookCall, brainFlag *cli.Optional, timeout int) error {
	call.Stdin, call.Dir, call.Seconds = env.Stdin, cwd(), timeout
	call.Open = func() (*memory.Store, error) { return open(env, brainFlag) }
	out, notice := memory.Answer(ctx, call)
	if notice != "" {
		fmt.Fprintln(env.Stderr, "bf: "+cli.Escape(notice))
	}
	return cli.WriteJSON(env.Stdout, out)
}

// refusedHook answers a hook command line whose flags were refused (a mistyped flag in the
// host's settings) as a hook, exit 0 and nothing added; any other command line is refused
// as usual.
func refusedHook(event string) func(context.Context, *cli.Env, []string, error) error {
	return func(ctx context.Context, env *cli.Env, args []string, err error) error {
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--hook" || a == "-hook" || strings.HasPrefix(a, "--hook=") || strings.HasPrefix(a, "-hook=") {
				return runHook(ctx, env, memory.HookCall{Event: event, Refused: err}, &cli.Optional{}, memory.DefaultHookSeconds)
			}
		}
		return err
	}
}

func briefCmd() *cli.Command {
	var (
		brainFlag *cli.Optional
		req       memory.BriefRequest
		hook      string
		timeout   int
	)
	return &cli.Command{
		Name: "brief",
		Usage: `usage: bf brief [--bytes N] [--scope S] [--brain NAME|PATH]
       bf brief --hook session-start [--timeout N] < HOOK.json

Print the session brief: rules, how the user wants to work, pinned memories, reviews due,
the code's state from git, open tasks, other brains and recent activity, within --bytes
(6000 by default). Over the limit the least important parts are cut, named, and the
command to see the rest is printed. With --hook session-start it reads the host's
SessionStart JSON on stdin and prints what the host adds to the session; a hook exits 0
whatever goes wrong, prints {} (nothing added) and says why on one stderr line.`,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&req.Bytes, "bytes", memory.DefaultBriefBytes, "at most `N` bytes of brief text, 256 to 1048576")
			fs.StringVar(&req.Scope, "scope", "", "the `SCOPE` the session works in (default global)")
			fs.StringVar(&hook, "hook", "", "read a host hook event on stdin: session-start")
			fs.IntVar(&timeout, "timeout", memory.DefaultHookSeconds, "with --hook: give up and add nothing after `N` seconds, 1 to 600")
			brainFlag = cli.BrainFlag(fs)
		},
		Refused: refusedHook(memory.EventSessionStart),
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if hook != "" {
				return runHook(ctx, env, memory.HookCall{Name: hook, Event: memory.EventSessionStart, Scope: req.Scope, Bytes: req.Bytes}, brainFlag, timeout)
			}
			if len(args) > 0 {
				return cli.Usagef("bf brief takes no arguments (see bf brief --help)")
			}
			if timeout != memory.DefaultHookSeconds {
				return cli.Usagef("invalid input: --timeout: applies only with --hook")
			}
			req.Repo = cwd()
			return answer(env, brainFlag, func(s *memory.Store) (*memory.BriefReply, error) { return s.Brief(ctx, req) })
		},
	}
}

func verifyCmd() *cli.Command {
	var (
		brainFlag *cli.Optional
		source    string
	)
	return &cli.Command{
		Name: "verify",
		Usage: `usage: bf verify REF --source TEXT [--brain NAME|PATH]

Record that a memory was checked again: it becomes confirmed with that source, and its
review date (infra, access, or any memory with one) moves 30 days on.`,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&source, "source", "", "what it was checked against")
			brainFlag = cli.BrainFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("bf verify takes one REF (see bf verify --help)")
			}
			return answer(env, brainFlag, func(s *memory.Store) (*memory.VerifyReply, error) { return s.Verify(ctx, args[0], source) })
		},
	}
}

func forgetCmd() *cli.Command {
	var brainFlag *cli.Optional
	return &cli.Command{
		Name: "forget",
		Usage: `usage: bf forget REF [--brain NAME|PATH]

Delete a memory note; its last version stays under concepts/memory/.history/. A memory
that replaced others is refused: save a correction with --supersedes instead.`,
		Flags: func(fs *flag.FlagSet) { brainFlag = cli.BrainFlag(fs) },
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("bf forget takes one REF (see bf forget --help)")
			}
			return answer(env, brainFlag, func(s *memory.Store) (*memory.ForgetReply, error) { return s.Forget(ctx, args[0]) })
		},
	}
}

func reviewCmd() *cli.Command {
	var (
		brainFlag  *cli.Optional
		stale      int
		unreviewed bool
		offset     int64
		accept     bool
		reject     bool
	)
	return &cli.Command{
		Name: "review",
		Usage: `usage: bf review [--stale-days N] [--offset N] [--brain NAME|PATH]
       bf review --unreviewed [--offset N] [--brain NAME|PATH]
       bf review --accept REF… | --reject REF… [--brain NAME|PATH]

List what needs a look: reviews due, tier A and B memories nobody re-checked for N days
(90 by default), duplicates that slipped in, and stored scopes bf.yaml does not declare.
Each list holds 50 items a page, with its total; next_offset is the next page's --offset.
Duplicates come in groups: every current memory of a scope whose title overlaps another's
in the group. A memory saved with --allow-duplicate records the memories it was saved
beside (distinct-from), and those pairs are not reported again.

--unreviewed lists what no person has confirmed, 50 at a time: memories an agent saved,
notes marked review: unreviewed, and record files collection did not write. Until
accepted they stay out of fused search, bf ask and MCP resources, and no link they state
is followed. --accept confirms each REF (a note path, a record ref SOURCE:ID, or
memories/SOURCE for all its records), changing only the review mark or the source's
ledger; --reject moves agent memories to the memory history, as bf forget does.`,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&stale, "stale-days", memory.DefaultStaleDays, "list tier A/B memories unchecked for `N` days")
			fs.BoolVar(&unreviewed, "unreviewed", false, "list what no person has confirmed")
			fs.Int64Var(&offset, "offset", 0, "skip the first `N` items of each list (a reply's next_offset)")
			fs.BoolVar(&accept, "accept", false, "confirm the REF arguments")
			fs.BoolVar(&reject, "reject", false, "withdraw the agent memories named by the REF arguments")
			brainFlag = cli.BrainFlag(fs)
		},
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			modes := 0
			for _, on := range []bool{unreviewed, accept, reject} {
				if on {
					modes++
				}
			}
			switch {
			case modes > 1:
				return cli.Usagef("give one of --unreviewed, --accept and --reject (see bf review --help)")
			case accept:
				return answer(env, brainFlag, func(s *memory.Store) (*memory.DecideReply, error) { return s.Accept(ctx, args) })
			case reject:
				return answer(env, brainFlag, func(s *memory.Store) (*memory.DecideReply, error) { return s.Reject(ctx, args) })
			case len(args) > 0:
				return cli.Usagef("bf review takes REF arguments only with --accept or --reject (see bf review --help)")
			case unreviewed:
				return answer(env, brainFlag, func(s *memory.Store) (*memory.PendingReply, error) { return s.Pending(ctx, offset) })
			}
			return answer(env, brainFlag, func(s *memory.Store) (*memory.ReviewReply, error) { return s.Review(ctx, stale, offset) })
		},
	}
}

func scopeCmd() *cli.Command {
	var brainFlag *cli.Optional
	return &cli.Command{
		Name: "scope",
		Usage: `usage: bf scope [SCOPE…] [--brain NAME|PATH]

Declare memory scopes in bf.yaml (memory.scopes) and compare the declared scopes with
those stored: a scope nobody declared is usually a typo.`,
		Flags: func(fs *flag.FlagSet) { brainFlag = cli.BrainFlag(fs) },
		Run: func(ctx context.Context, env *cli.Env, args []string) error {
			return answer(env, brainFlag, func(s *memory.Store) (*memory.ScopeReply, error) { return s.Scope(ctx, args) })
		},
	}
}

// answer opens the brain, runs one memory call and prints its reply.
func answer[T any](env *cli.Env, brainFlag *cli.Optional, call func(*memory.Store) (T, error)) error {
	s, err := open(env, brainFlag)
	if err != nil {
		return err
	}
	res, err := call(s)
	if err != nil {
		return classify(env, err)
	}
	return cli.WriteJSON(env.Stdout, res)
}
