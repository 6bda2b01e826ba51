package cache

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
)

// msgNoBrain fails a read none of whose brains could be read.
const msgNoBrain = "no selected brain could be read; run bf status with --brain for each brain"

// Reading is one brain's cache opened for the reads of one command (a page, a search, an
// export): the cache and one read-only snapshot of it, with what placing notes in time and
// ranking low-priority sources need.
type Reading struct {
	Brain *brain.Brain
	Cache *Cache
	Tx    *sql.Tx
	// Days maps each note day the brain holds to its local midnight, canonical UTC, as
	// JSON for queries (NoteDays); "" when the days were not asked for.
	Days string
	// Low lists, in order, the sources of sensors declared with priority: low.
	Low []string
}

// Close ends the snapshot and closes the cache.
func (r *Reading) Close() {
	r.Tx.Rollback()
	r.Cache.Close()
}

// OpenReadings opens a Reading of every brain, in order. With days set each also reads its
// note days in loc: pages and searches place notes in time, an export does not.
//
// A brain whose cache cannot be read is a problem added to probs (its folder written
// <brain>) while another brain answers; the only brain failing fails with its error, and
// no brain answering fails as a whole. Each cache's own problems are added to probs and
// the name of a brain served from a stale cache to stale. A cancelled context closes what
// was opened and returns its error.
func OpenReadings(ctx context.Context, brains []*brain.Brain, loc *time.Location, days bool,
	probs *reply.Problems, stale *[]string) ([]*Reading, error) {
	var out []*Reading
	for _, b := range brains {
		r, err := openReading(ctx, b, loc, days)
		if err != nil {
			if ctx.Err() != nil {
				for _, r := range out {
					r.Close()
				}
				return nil, ctx.Err()
			}
			if len(brains) == 1 {
				return nil, err
			}
			probs.AddError(b.Name, strings.ReplaceAll(err.Error(), b.Root, "<brain>"))
			continue
		}
		for _, pr := range r.Cache.Status.Problems {
			probs.Add(reply.Problem{Brain: b.Name, Error: pr.Error, File: pr.File})
		}
		if r.Cache.Status.Stale {
			*stale = append(*stale, b.Name)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, errors.New(msgNoBrain)
	}
	return out, nil
}

func openReading(ctx context.Context, b *brain.Brain, loc *time.Location, days bool) (*Reading, error) {
	c, tx, err := Snapshot(ctx, b)
	if err != nil {
		return nil, err
	}
	r := &Reading{Brain: b, Cache: c, Tx: tx}
	if days {
		if r.Days, err = NoteDays(ctx, tx, loc); err != nil {
			r.Close()
			return nil, Unavailable(err)
		}
	}
	if b.Config != nil {
		r.Low = b.Config.LowPrioritySources()
	}
	return r, nil
}
