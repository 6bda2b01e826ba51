package mcpserver

import (
	"context"
	"errors"

	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
	"github.com/bfgo/bf/libbf/vector"
)

// Search modes of the search tool.
const (
	modeWords = "words"
	modeFused = "fused"
)

// searchModeParam declares the search tool's mode argument.
var searchModeParam = param{name: "mode", enum: []string{modeWords, modeFused}, def: modeWords,
	description: "words: the word ranking. fused: lexical, dense, graph and recency strategies fused by rank, an explanation on every item, superseded notes replaced by their successors, archived, unreviewed and unconfirmed content left out."}

// searchMode reads the mode argument.
func searchMode(mode string) (string, error) {
	switch mode {
	case "", modeWords:
		return modeWords, nil
	case modeFused:
		return modeFused, nil
	}
	return "", &reply.InputError{Argument: "mode", Err: errors.New("expected words or fused")}
}

// runMode runs a search in its mode.
func runMode(ctx context.Context, mode string, req search.Request) (*search.Reply, error) {
	if mode == modeFused {
		return fuse.Run(ctx, fuse.Request{Search: req, Dense: vector.Dense})
	}
	return search.Run(ctx, req)
}
