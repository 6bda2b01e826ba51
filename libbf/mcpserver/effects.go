package mcpserver

import (
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/brain"
)

// effects is what one tool may do beyond reading the brain, for the brains this server
// serves. A tool's annotations, the sentence its description ends with and its line in
// the instructions are all derived from its effects, so they cannot disagree.
//
// Bringing the search cache (.bf/) up to date with the files is not a write here: every
// tool may do it, and bf rebuilds that cache from the files at any time.
type effects struct {
	// writes names the files a call may change.
	writes []string
	// runs names the programs a call may start.
	runs []string
	// sends names what a call may send over the network, and where.
	sends []string
	// replaces is true when a call may overwrite what is stored.
	replaces bool
	// changesNotes is true when a call may add or change the notes later calls read: the
	// server answers it before reading the next request, so those calls see the change.
	changesNotes bool
}

// plus is both effects at once.
func (e effects) plus(o effects) effects {
	return effects{
		writes:       slices.Concat(e.writes, o.writes),
		runs:         slices.Concat(e.runs, o.runs),
		sends:        slices.Concat(e.sends, o.sends),
		replaces:     e.replaces || o.replaces,
		changesNotes: e.changesNotes || o.changesNotes,
	}
}

func (e effects) readOnly() bool { return len(e.writes) == 0 }

// annotation is the tool's MCP annotation. Every tool that writes adds a log entry, a
// count or a note on each call, so only a tool that writes nothing is idempotent.
func (e effects) annotation(title string) mcp.ToolAnnotation {
	return mcp.ToolAnnotation{
		Title:           title,
		ReadOnlyHint:    mcp.ToBoolPtr(e.readOnly()),
		DestructiveHint: mcp.ToBoolPtr(e.replaces),
		IdempotentHint:  mcp.ToBoolPtr(e.readOnly()),
		OpenWorldHint:   mcp.ToBoolPtr(len(e.sends) > 0),
	}
}

// sentence says in words what the tool may write, run and send.
func (e effects) sentence() string {
	part := func(items []string, some, none string) string {
		if len(items) == 0 {
			return none
		}
		return some + strings.Join(items, "; ") + "."
	}
	return strings.Join([]string{
		part(e.writes, "Writes ", "Writes no file."),
		part(e.runs, "Runs ", "Runs no program."),
		part(e.sends, "Uses the network: sends ", "Uses no network."),
	}, " ")
}

// providers are the embeddings and ask providers the brains selected at startup declare.
type providers struct {
	// embedCommand and embedURL are true when some selected brain declares embeddings:
	// with a command or with a URL.
	embedCommand, embedURL bool
	// askCommand and askURL are true when the one selected brain declares ask: with a
	// command or with a URL.
	askCommand, askURL bool
}

func providersOf(sel *brain.Selection) providers {
	var p providers
	for _, b := range sel.Brains {
		if b.Config == nil {
			continue
		}
		if e := b.Config.Embeddings; e != nil {
			p.embedCommand = p.embedCommand || len(e.Command) > 0
			p.embedURL = p.embedURL || e.URL != ""
		}
	}
	if a := askConfig(sel); a != nil {
		p.askCommand, p.askURL = len(a.Command) > 0, a.URL != ""
	}
	return p
}

// retrieval is what fused retrieval may do: ask the embeddings provider for the query's
// vector. when says in which calls ("" for every call).
func (p providers) retrieval(query, when string) effects {
	var e effects
	if p.embedCommand {
		e.writes = append(e.writes, "the brain's logs/embeddings.log"+when)
		e.runs = append(e.runs, "the embeddings command bf.yaml declares"+when)
	}
	if p.embedURL {
		e.sends = append(e.sends, query+" to the embeddings URL bf.yaml declares"+when)
	}
	return e
}

// The effects of each tool. The embeddings and ask providers act only for a brain trusted
// on this machine, but trust can be granted while the server runs, so a declared provider
// counts.

func (p providers) search() effects { return p.retrieval("the query", " (in fused mode)") }

func (p providers) read() effects { return effects{} }

func (p providers) remember() effects {
	return effects{
		writes: []string{
			"a memory note under concepts/memory/ (update replaces its body and keeps the old one under concepts/memory/.history)",
			"bf.yaml (the first save declares the memory fields)",
			"the brain's logs/git.log",
			"the memory lock in the bf state folder",
		},
		runs:         []string{"git (to stamp gotcha, state and incident memories with the current commit)"},
		replaces:     true,
		changesNotes: true,
	}
}

func (p providers) recall() effects {
	return effects{
		writes: []string{
			"usage counts in the bf state folder (unless no_touch)",
			"the brain's logs/git.log (when a memory carries a commit stamp)",
		},
		runs: []string{"git (the commit line of a memory stamped with a commit)"},
	}
}

func (p providers) brief() effects {
	return effects{
		writes: []string{"the brain's logs/git.log"},
		runs:   []string{"git (the state of the code in the working folder)"},
	}
}

func (p providers) ask() effects {
	e := effects{writes: []string{"the question allowance in the bf state folder"}}
	if p.askCommand {
		e.writes = append(e.writes, "the brain's logs/ask.log")
		e.runs = append(e.runs, "the ask command bf.yaml declares")
	}
	if p.askURL {
		e.sends = append(e.sends, "the question and the retrieved blocks, secrets redacted, to the ask URL bf.yaml declares")
	}
	return e.plus(p.retrieval("the question", ""))
}
