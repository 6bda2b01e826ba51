package pages

import (
	"context"
	"database/sql"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/jsontext"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Querier is what pages read a cache through: a *sql.DB, or better a read-only *sql.Tx so
// that every question sees one snapshot.
type Querier = cache.Querier

// part is one brain that answered, read in one snapshot.
type part struct {
	brain *brain.Brain
	name  string
	cache *cache.Cache
	tx    *sql.Tx
	// days maps each note day the brain holds to its local midnight, canonical UTC, as
	// JSON for queries.
	days string
	// dayAt is days decoded, when first needed.
	dayAt map[string]string
	// low holds the sources of sensors declared with priority: low; lowJSON lists them.
	low     map[string]bool
	lowJSON string
}

func (p *part) close() {
	p.tx.Rollback()
	p.cache.Close()
}

// session is the brains one page reads, with what makes its answer incomplete.
type session struct {
	parts []*part
	// single is true when the reply prints the local shape: one brain, no selection problem.
	single bool
	// missing is true when a selected brain did not answer.
	missing bool
	probs   reply.Problems
	stale   []string
	now     time.Time
	loc     *time.Location
}

func (s *session) close() {
	for _, p := range s.parts {
		p.close()
	}
}

// incomplete reports whether something was skipped or served stale.
func (s *session) incomplete() bool { return s.probs.Len() > 0 || len(s.stale) > 0 }

// notFound is the failure of a page naming nothing: NotFoundError with msg, or the
// incomplete-evidence message when something was skipped.
func (s *session) notFound(msg string) error {
	if s.incomplete() {
		return &reply.NotFoundError{Msg: msgIncomplete}
	}
	return &reply.NotFoundError{Msg: msg}
}

// openSession opens the brains a request reads: every selected brain, or the one its
// Brain names. A brain that fails is a problem while another answers; the only brain
// failing fails the read.
func openSession(ctx context.Context, req Request) (*session, error) {
	s := &session{now: req.Now, loc: req.Location}
	brains, selection, err := restrict(req)
	if err != nil {
		return nil, err
	}
	for _, pr := range selection {
		s.probs.Add(reply.Problem{Brain: pr.Brain, Error: pr.Error, File: pr.File})
	}
	s.single = len(brains) == 1 && len(selection) == 0
	// The brains' problems follow the selection's, each list capped on its own.
	var later reply.Problems
	readings, err := cache.OpenReadings(ctx, brains, req.Location, true, &later, &s.stale)
	if err != nil {
		return nil, err
	}
	s.missing = len(readings) < len(brains)
	for _, r := range readings {
		s.parts = append(s.parts, newPart(r))
	}
	for _, pr := range later.List() {
		s.probs.Add(pr)
	}
	return s, nil
}

// restrict returns the brains a request reads and the selection problems that concern
// them: every selected brain, or the one its Brain names.
func restrict(req Request) ([]*brain.Brain, []brain.Problem, error) {
	if req.Brain == "" {
		return req.Brains, req.Problems, nil
	}
	var brains []*brain.Brain
	var selection []brain.Problem
	for _, b := range req.Brains {
		if b.Name == req.Brain {
			brains = append(brains, b)
		}
	}
	for _, pr := range req.Problems {
		if pr.Brain == req.Brain || pr.Brain == "" {
			selection = append(selection, pr)
		}
	}
	if len(brains) == 0 {
		if len(selection) > 0 {
			return nil, nil, &reply.NotFoundError{Msg: msgIncomplete}
		}
		return nil, nil, &reply.NotFoundError{Msg: "no selected brain is named " + req.Brain + "; run bf status to list brains"}
	}
	return brains, selection, nil
}

// newPart is the part of a brain's reading.
func newPart(r *cache.Reading) *part {
	p := &part{brain: r.Brain, name: r.Brain.Name, cache: r.Cache, tx: r.Tx, days: r.Days,
		low: map[string]bool{}, lowJSON: jsontext.Array(r.Low)}
	for _, name := range r.Low {
		p.low[name] = true
	}
	return p
}

// cacheError names the cache in a database failure.
func cacheError(err error) error {
	return cache.Unavailable(err)
}

// count runs a query of one integer.
func count(ctx context.Context, q Querier, query string, args ...any) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// Layouts of a local day and of a stored instant.
const (
	dayLayout    = "2006-01-02"
	storedLayout = "2006-01-02T15:04:05.000000Z"
)

// canonical is an instant as the cache stores it.
func canonical(t time.Time) string { return timestamp.Canonical(t) }

// fitEntries fits one page of a directory's entries (tags, tasks: not items, which
// session.fit shapes) in the reply budget. It returns the entries shown, never nil, and
// next_offset for a directory of total entries; with one brain read, local strips each
// shown entry of what names its brain.
func fitEntries[T any](s *session, page []T, offset int64, total int, local func(*T)) ([]T, *int64, error) {
	n, err := reply.Fit(page, reply.Budget, nil)
	if err != nil {
		return nil, nil, err
	}
	shown := append([]T{}, page[:n]...)
	if s.single {
		for i := range shown {
			local(&shown[i])
		}
	}
	return shown, reply.NextOffset(offset, n, offset+int64(n) < int64(total)), nil
}
