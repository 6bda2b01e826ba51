package mcpserver

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/bfgo/bf/libbf/ask"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/reply"
)

const askDescription = `Answer a question from the brain through the model the brain configures: fused retrieval within an optional scope, secrets redacted, retrieved blocks fenced as data, and an answer whose citations name retrieved blocks (each with its ref to read). Each answer is a paid model call: at most 20 questions a minute, shared with bf ask.`

var askInput = input{
	{name: "question", maxLength: 4096, required: true, description: "The question, in plain words."},
	{name: "scope", maxLength: 8192, def: "", description: "Retrieve only within one scope, as for the search tool."},
}

// askConfig is the model of the one brain selected, which the ask tool answers with, or
// nil when there is no such model and no ask tool.
func askConfig(sel *brain.Selection) *config.Ask {
	if len(sel.Brains) != 1 || sel.Brains[0].Config == nil {
		return nil
	}
	return sel.Brains[0].Config.Ask
}

// ask answers one question like bf ask.
func (s *Server) ask(ctx context.Context, call mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := arguments(call, askInput)
	if err != nil {
		return s.fail(nil, err), nil
	}
	req := ask.Request{Question: a.str("question"), Scope: a.str("scope")}
	if err := ask.Check(req); err != nil {
		return s.fail(nil, err), nil
	}
	sel, err := s.selectBrains()
	if err != nil {
		return s.fail(nil, err), nil
	}
	if len(sel.Brains) != 1 {
		return s.fail(sel, &reply.InputError{Argument: "brain", Err: errors.New("ask answers from one brain; start bf mcp with --brain")}), nil
	}
	if req.StateDir, err = s.opts.Env.StateDir(); err != nil {
		return s.fail(sel, err), nil
	}
	req.Brain = sel.Brains[0]
	res, err := ask.Ask(ctx, req)
	if err != nil {
		return s.fail(sel, err), nil
	}
	return s.result(sel, res), nil
}
