package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/memory"
	"github.com/bfgo/bf/libbf/reply"
)

// The memory tools answer exactly as bf remember, bf recall and bf brief: the same
// requests to libbf/memory, the same JSON documents.

const rememberDescription = `Save a typed memory of the first selected brain as a note under concepts/memory/. Pass type (it sets how fast the memory fades), a one-line title and the body. The same title in the same scope updates that memory; a different body needs update or supersedes. A title sharing half its words with a stored one is refused with the existing ref and three ways forward. confirmed needs source or ref. Save what the repository does not already hold: why an approach was turned down, what broke, limits and preferences nobody wrote down.`

const recallDescription = `Rank the memories visible from a scope (its own level and every parent, never siblings) by relevance × coverage × recency × stakes × scope. Without a query, list every visible memory (pins double). Superseded memories are replaced by their current version unless all. Gotcha, state and incident memories carry a commit_line saying whether the code moved since they were stored.`

const briefDescription = `The session brief: rules, how the user wants to work, pinned memories, reviews due, the code's state, open tasks, other brains and recent activity, within a byte limit; what the limit cut is named with the command to see the rest.`

const rememberInput = `{"type":"object","properties":{` +
	`"type":{"type":"string","enum":["policy","constraint","decision","incident","gotcha","infra","access","fact","preference","relationship","state"]},` +
	`"title":{"type":"string","minLength":1,"maxLength":4096},` +
	`"body":{"type":"string","minLength":1,"maxLength":65536},` +
	`"scope":{"type":"string","maxLength":256,"default":"global"},` +
	`"importance":{"type":"integer","minimum":1,"maximum":5,"default":3},` +
	`"confidence":{"type":"string","enum":["confirmed","reported","uncertain","high","medium","low"],"default":"reported"},` +
	`"trust":{"type":"string","enum":["stated","imported","external"],"default":"stated"},` +
	`"source":{"type":"string","maxLength":4096},` +
	`"ref":{"type":"string","maxLength":8192},` +
	`"supersedes":{"type":"string","maxLength":8192,"description":"The ref of the memory this one corrects."},` +
	`"fork_ok":{"type":"boolean","default":false},` +
	`"update":{"type":"boolean","default":false},` +
	`"allow_duplicate":{"type":"boolean","default":false},` +
	`"pin":{"type":"boolean","default":false},` +
	`"review":{"type":"string","description":"YYYY-MM-DD"},` +
	`"no_review":{"type":"boolean","default":false}},` +
	`"required":["type","title","body"],"additionalProperties":false}`

const recallInput = `{"type":"object","properties":{` +
	`"query":{"type":"string","maxLength":4096,"default":""},` +
	`"scope":{"type":"string","maxLength":256,"default":""},` +
	`"all":{"type":"boolean","default":false},` +
	`"no_touch":{"type":"boolean","default":false},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"default":10}},` +
	`"additionalProperties":false}`

const briefInput = `{"type":"object","properties":{` +
	`"scope":{"type":"string","maxLength":256,"default":""},` +
	`"bytes":{"type":"integer","minimum":256,"maximum":1048576,"default":6000}},` +
	`"additionalProperties":false}`

// addMemoryTools registers remember, recall and brief.
func (s *Server) addMemoryTools() error {
	remember, err := tool("remember", "Remember a fact", rememberDescription, rememberInput, "remember-reply")
	if err != nil {
		return err
	}
	remember.Annotations.ReadOnlyHint = mcp.ToBoolPtr(false)
	remember.Annotations.IdempotentHint = mcp.ToBoolPtr(false)
	recall, err := tool("recall", "Recall memories", recallDescription, recallInput, "recall-reply")
	if err != nil {
		return err
	}
	// A recall counts uses unless no_touch: it writes machine state, never the brain.
	recall.Annotations.IdempotentHint = mcp.ToBoolPtr(false)
	brief, err := tool("brief", "Session brief", briefDescription, briefInput, "brief-reply")
	if err != nil {
		return err
	}
	s.mcp.AddTool(remember, s.remember)
	s.mcp.AddTool(recall, s.recall)
	s.mcp.AddTool(brief, s.brief)
	return nil
}

func (a args) boolean(name string) (bool, error) {
	v, ok := a[name]
	if !ok {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		return false, &reply.InputError{Argument: name, Err: errors.New("expected true or false")}
	}
	return b, nil
}

// store opens the first selected brain's memories.
func (s *Server) store() (*memory.Store, error) {
	sel, err := s.selectBrains()
	if err != nil {
		return nil, err
	}
	return &memory.Store{Brain: sel.Brains[0]}, nil
}

func workdir() string {
	d, _ := os.Getwd()
	return d
}

func (s *Server) remember(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := decodeArgs(call)
	if err != nil {
		return s.fail(nil, err), nil
	}
	var req memory.RememberRequest
	for name, dst := range map[string]*string{"type": &req.Type, "title": &req.Title, "body": &req.Body, "scope": &req.Scope,
		"confidence": &req.Confidence, "trust": &req.Trust, "source": &req.Source, "ref": &req.Ref, "supersedes": &req.Supersedes, "review": &req.Review} {
		if *dst, err = a.str(name); err != nil {
			return s.fail(nil, err), nil
		}
	}
	for name, dst := range map[string]*bool{"fork_ok": &req.ForkOK, "update": &req.Update, "allow_duplicate": &req.AllowDuplicate,
		"pin": &req.Pin, "no_review": &req.NoReview} {
		if *dst, err = a.boolean(name); err != nil {
			return s.fail(nil, err), nil
		}
	}
	imp, err := a.integer("importance", 0)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req.Importance, req.Repo = int(imp), workdir()
	st, err := s.store()
	if err != nil {
		return s.fail(nil, err), nil
	}
	res, err := st.Remember(ctx, req)
	if r, ok := memory.IsRefusal(err); ok {
		b, merr := reply.Marshal(map[string]any{"refused": r})
		if merr != nil {
			return s.fail(nil, merr), nil
		}
		out := mcp.NewToolResultText(string(b))
		out.IsError = true
		return out, nil
	}
	if err != nil {
		return s.fail(nil, err), nil
	}
	return s.result(nil, res), nil
}

func (s *Server) recall(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := decodeArgs(call)
	if err != nil {
		return s.fail(nil, err), nil
	}
	var req memory.RecallRequest
	if req.Query, err = a.str("query"); err != nil {
		return s.fail(nil, err), nil
	}
	if req.Scope, err = a.str("scope"); err != nil {
		return s.fail(nil, err), nil
	}
	if req.All, err = a.boolean("all"); err != nil {
		return s.fail(nil, err), nil
	}
	if req.NoTouch, err = a.boolean("no_touch"); err != nil {
		return s.fail(nil, err), nil
	}
	limit, err := a.integer("limit", memory.DefaultLimit)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req.Limit, req.Repo = int(limit), workdir()
	st, err := s.store()
	if err != nil {
		return s.fail(nil, err), nil
	}
	res, err := st.Recall(ctx, req)
	if err != nil {
		return s.fail(nil, err), nil
	}
	return s.result(nil, res), nil
}

func (s *Server) brief(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := decodeArgs(call)
	if err != nil {
		return s.fail(nil, err), nil
	}
	var req memory.BriefRequest
	if req.Scope, err = a.str("scope"); err != nil {
		return s.fail(nil, err), nil
	}
	n, err := a.integer("bytes", memory.DefaultBriefBytes)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req.Bytes, req.Repo = int(n), workdir()
	st, err := s.store()
	if err != nil {
		return s.fail(nil, err), nil
	}
	res, err := st.Brief(ctx, req)
	if err != nil {
		return s.fail(nil, err), nil
	}
	return s.result(nil, res), nil
}
