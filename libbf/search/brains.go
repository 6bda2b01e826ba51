package search

import (
	"context"
	"database/sql"
	"github.com/bfgo/bf/libbf/history"
	"sort"
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
	// days places notes, dated by day, at their local midnight.
	days *cache.Days
	// low lists the sources of sensors declared with priority: low, as JSON.
	low string
	// texts reads a passage's folded columns, original text and lead, prepared on first use.
	texts *sql.Stmt
	// claims reads the claims explaining an identity-search result, prepared on first use.
	claims *sql.Stmt
	// hist is the brain's run history on this machine, read on first use.
	hist *history.History
	// held tells, by match expression, whether some passage holds a query term (holds).
	held map[string]bool
}

// open opens every selected brain. A brain that fails is a problem while another answers;
// the only selected brain failing fails the search.
func open(ctx context.Context, brains []*brain.Brain, loc *time.Location, probs *reply.Problems, stale *[]string) ([]*part, error) {
	readings, err := cache.OpenReadings(ctx, brains, loc, false, probs, stale)
	if err != nil {
		return nil, err
	}
	parts := make([]*part, len(readings))
	for i, r := range readings {
		parts[i] = &part{brain: r.Brain, name: r.Brain.Name, cache: r.Cache, tx: r.Tx, days: cache.NewDays(r.Tx, loc),
			low: jsontext.Array(r.Low)}
	}
	return parts, nil
}

func (p *part) close() {
	for _, st := range []*sql.Stmt{p.texts, p.claims} {
		if st != nil {
			st.Close()
		}
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
