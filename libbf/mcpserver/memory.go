package mcpserver

import (
	"context"
	"os"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/memory"
	"github.com/bfgo/bf/libbf/reply"
)

// The memory tools answer exactly as bf remember, bf recall and bf brief: the same
// requests to libbf/memory, the same JSON documents. Their refusals name the tools'
// arguments where the commands' name flags (wording.go).

const rememberDescription = `Save a typed memory of the first selected brain as a note under concepts/memory/. Pass type (it sets how fast the memory fades), a one-line title and the body. The same title in the same scope updates that memory; a different body needs update or supersedes. A title sharing half its words with a stored one is refused with the existing ref and three ways forward. confirmed needs source or ref. Save what the repository does not already hold: why an approach was turned down, what broke, limits and preferences nobody wrote down.`

const recallDescription = `Rank the memories visible from a scope (its own level and every parent, never siblings) by relevance × coverage × recency × stakes × scope. Without a query, list every visible memory (pins double). Superseded memories are replaced by their current version unless all. Gotcha, state and incident memories carry a commit_line saying whether the code moved since they were stored.`

const briefDescription = `The session brief: rules, how the user wants to work, pinned memories, reviews due, the code's state, open tasks, other brains and recent activity, within a byte limit; what the limit cut is named with the command to see the rest.`

// The memory tools' arguments; their published schemas are these, as check enforces them.
var rememberInput = input{
	{name: "type", enum: []string{"policy", "constraint", "decision", "incident", "gotcha", "infra", "access", "fact", "preference", "relationship", "state"}, enumTyped: true, required: true},
	{name: "title", minLength: 1, maxLength: 4096, required: true},
	{name: "body", minLength: 1, maxLength: 65536, required: true},
	{name: "scope", maxLength: 256, def: "global"},
	{name: "importance", integer: true, min: 1, max: 5, def: 3},
	{name: "confidence", enum: []string{"confirmed", "reported", "uncertain", "high", "medium", "low"}, enumTyped: true, def: "reported"},
	{name: "trust", enum: []string{"stated", "imported", "external"}, enumTyped: true, def: "stated"},
	{name: "source", maxLength: 4096},
	{name: "ref", maxLength: 8192},
	{name: "supersedes", maxLength: 8192, description: "The ref of the memory this one corrects."},
	{name: "fork_ok", boolean: true, def: false},
	{name: "narrow_ok", boolean: true, def: false, description: "Let a correction live in a narrower scope than the memory it supersedes: recall elsewhere then loses the old fact."},
	{name: "update", boolean: true, def: false},
	{name: "allow_duplicate", boolean: true, def: false},
	{name: "pin", boolean: true, def: false},
	{name: "review", description: "YYYY-MM-DD"},
	{name: "no_review", boolean: true, def: false},
}

var recallInput = input{
	{name: "query", maxLength: 4096, def: ""},
	{name: "scope", maxLength: 256, def: ""},
	{name: "all", boolean: true, def: false},
	{name: "no_touch", boolean: true, def: false},
	{name: "limit", integer: true, min: 1, max: 50, def: memory.DefaultLimit},
	{name: "offset", integer: true, min: 0, max: reply.MaxOffset, def: 0, description: "Continue at a previous reply's next_offset."},
	{name: "type", maxLength: 256, def: "", description: "Keep only memories of these types, comma-separated, such as policy,constraint."},
	{name: "order", enum: []string{memory.OrderScore, memory.OrderImportance}, enumTyped: true, def: memory.OrderScore, description: "score (the formula) or importance (most important first, then newest), as the brief lists rules."},
}

var briefInput = input{
	{name: "scope", maxLength: 256, def: ""},
	{name: "bytes", integer: true, min: 256, max: 1048576, def: memory.DefaultBriefBytes},
}

// store opens the first selected brain's memories.
func (s *Server) store() (*memory.Store, error) {
	sel, err := s.selectBrains()
	if err != nil {
		return nil, err
	}
	return &memory.Store{Brain: sel.Brains[0], Now: s.opts.Now}, nil
}

func workdir() string {
	d, _ := os.Getwd()
	return d
}

func (s *Server) remember(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := arguments(call, rememberInput)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req := memory.RememberRequest{Type: a.str("type"), Title: a.str("title"), Body: a.str("body"), Scope: a.str("scope"),
		Importance: int(a.integer("importance")), Confidence: a.str("confidence"), Trust: a.str("trust"), Source: a.str("source"),
		Ref: a.str("ref"), Supersedes: a.str("supersedes"), ForkOK: a.boolean("fork_ok"), NarrowOK: a.boolean("narrow_ok"), Update: a.boolean("update"),
		AllowDuplicate: a.boolean("allow_duplicate"), Pin: a.boolean("pin"), Review: a.str("review"), NoReview: a.boolean("no_review"),
		Repo: workdir()}
	st, err := s.store()
	if err != nil {
		return s.fail(nil, err), nil
	}
	res, err := st.Remember(ctx, req)
	if r, ok := memory.IsRefusal(err); ok {
		b, merr := reply.Marshal(map[string]any{"refused": s.wordRefusal(r)})
		if merr != nil {
			return s.fail(nil, merr), nil
		}
		out := mcp.NewToolResultText(string(b))
		out.IsError = true
		return out, nil
	}
	if err != nil {
		return s.fail(nil, s.wordError("remember", err)), nil
	}
	return s.result(nil, res), nil
}

// wordRefusal is a guard's refusal with its flags and message worded for the remember tool.
func (s *Server) wordRefusal(r *memory.Refusal) *memory.Refusal {
	out := *r
	out.Message = s.wording("remember", r.Message)
	out.Flags = make([]string, len(r.Flags))
	for i, f := range r.Flags {
		out.Flags[i] = s.wording("remember", f)
	}
	return &out
}

func (s *Server) recall(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := arguments(call, recallInput)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req := memory.RecallRequest{Query: a.str("query"), Scope: a.str("scope"), All: a.boolean("all"), NoTouch: a.boolean("no_touch"),
		Limit: memory.DefaultLimit, Repo: workdir()}
	if a.has("limit") {
		req.Limit = int(a.integer("limit"))
	}
	req.Offset, req.Types, req.Order = int(a.integer("offset")), memory.ParseTypes(a.str("type")), a.str("order")
	st, err := s.store()
	if err != nil {
		return s.fail(nil, err), nil
	}
	res, err := st.Recall(ctx, req)
	if err != nil {
		return s.fail(nil, s.wordError("recall", err)), nil
	}
	return s.result(nil, res), nil
}

func (s *Server) brief(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := arguments(call, briefInput)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req := memory.BriefRequest{Scope: a.str("scope"), Bytes: memory.DefaultBriefBytes, Repo: workdir()}
	if a.has("bytes") {
		req.Bytes = int(a.integer("bytes"))
	}
	st, err := s.store()
	if err != nil {
		return s.fail(nil, err), nil
	}
	res, err := st.Brief(ctx, req)
	if err != nil {
		return s.fail(nil, s.wordError("brief", err)), nil
	}
	return s.result(nil, res), nil
}
