package search

import (
	"context"
	"database/sql"
	"errors"
	"github.com/bfgo/bf/libbf/history"
	"sort"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/reply"
)

// part is one brain that answered: its cache, read in one snapshot.
type part struct {
	brain *brain.Brain
	name  string
	cache *cache.Cache
	tx    *sql.Tx
	// days maps each note day the brain holds to its local midnight, canonical UTC, as
	// JSON for queries: notes are dated by day and placed at local midnight.
	days string
	// low lists the sources of sensors declared with priority: low, as JSON.
	low string
	// texts reads a passage's folded columns, original text and lead, prepared on first use.
	texts *sql.Stmt
	// hist is the brain's run history on this machine, read on first use.
	hist *history.History
}

// open opens every selected brain. A brain that fails is a problem while another answers;
// the only selected brain failing fails the search.
func open(ctx context.Context, brains []*brain.Brain, loc *time.Location, probs *reply.Problems, stale *[]string) ([]*part, error) {
	var parts []*part
	for _, b := range brains {
		p, err := openPart(ctx, b, loc)
		if err != nil {
			if ctx.Err() != nil {
				closeParts(parts)
				return nil, ctx.Err()
			}
			if len(brains) == 1 {
				return nil, err
			}
			probs.AddError(b.Name, strings.ReplaceAll(err.Error(), b.Root, "<brain>"))
			continue
		}
		for _, pr := range p.cache.Status.Problems {
			probs.Add(reply.Problem{Brain: b.Name, Error: pr.Error, File: pr.File})
		}
		if p.cache.Status.Stale {
			*stale = append(*stale, b.Name)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, errors.New(msgNoBrain)
	}
	return parts, nil
}

func openPart(ctx context.Context, b *brain.Brain, loc *time.Location) (*part, error) {
	c, tx, err := cache.Snapshot(ctx, b)
	if err != nil {
		return nil, err
	}
	p := &part{brain: b, name: b.Name, cache: c, tx: tx}
	if p.days, err = cache.NoteDays(ctx, tx, loc); err != nil {
		p.close()
		return nil, cacheError(err)
	}
	var low []string
	if b.Config != nil {
		low = b.Config.LowPrioritySources()
	}
	p.low = jsontext.Array(low)
	return p, nil
}

func (p *part) close() {
	if p.texts != nil {
		p.texts.Close()
	}
	p.tx.Rollback()
	p.cache.Close()
}

func closeParts(parts []*part) {
	for _, p := range parts {
		p.close()
	}
}

// cacheError names the cache in a database failure.
func cacheError(err error) error {
	return cache.Unavailable(err)
}

// sortedSet lists a set's members in order.
func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for v := range set {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
