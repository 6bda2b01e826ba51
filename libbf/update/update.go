// Package update is bf update: the brain's due sensors and routines, then the search
// cache (package collect), then one pass over its assistants as a watch cycle makes
// (package assist), then the chunks waiting for vectors (package vector).
package update

import (
	"context"
	"errors"

	"github.com/bfgo/bf/libbf/assist"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/collect"
	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/vector"
)

// Result is what bf update did.
type Result struct {
	// Reply is what bf update prints.
	Reply *collect.UpdateReply
	// EmbedErr is why the embedding pass failed. The brain's "embeddings" says it too, and
	// bf update reports it and exits 1, while the reply's "ok" speaks of the programs and
	// the cache only.
	EmbedErr error
}

// Failed reports whether bf update exits 1: a program, the records, the cache, an
// assistant's job or the embedding pass failed.
func (r *Result) Failed() bool { return !r.Reply.OK || r.EmbedErr != nil }

// Run updates brain b. Selecting sensors or routines (opt.Sensors, opt.Routines) skips the
// assistants' pass, and a dry run skips it and the embeddings. It returns an error only
// when nothing could be updated, or ctx ended.
func Run(ctx context.Context, b *brain.Brain, opt collect.Options) (*Result, error) {
	res, err := collect.Update(ctx, b, opt)
	if err != nil {
		return nil, err
	}
	bu := &res.Brains[0]
	if !opt.DryRun && len(opt.Sensors)+len(opt.Routines) == 0 && bu.Skipped == "" && len(b.Config.Assistants) > 0 {
		rep, err := assist.Runner{Env: opt.Env, Now: opt.Now}.Cycle(ctx, b, nil)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			rep = &assist.Report{Errors: []string{err.Error()}}
		}
		bu.Assistants = rep
		if !succeeded(rep) {
			res.OK = false
		}
	}
	out := &Result{Reply: res}
	if opt.DryRun {
		return out, nil
	}
	rep, err := vector.Embed(ctx, b)
	pass := &collect.Embeddings{Chunks: rep.Chunks, Embedded: rep.Embedded, Reused: rep.Reused}
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, vector.ErrUntrusted):
		// The reply already says the brain was skipped as not trusted: its vectors wait,
		// as its collectors do.
		pass = nil
	default:
		pass.Error = err.Error()
		out.EmbedErr = err
	}
	if b.Config != nil && b.Config.Embeddings != nil {
		bu.Embeddings = pass
	}
	return out, nil
}

// succeeded reports whether the assistants' pass had no error and no failed or uncertain
// job attempt.
func succeeded(rep *assist.Report) bool {
	if len(rep.Errors) > 0 {
		return false
	}
	for _, r := range rep.Ran {
		if r.State == queue.Failed || r.State == queue.Uncertain {
			return false
		}
	}
	return true
}
