package pages

import (
	"context"
	"database/sql"
	"errors"
	"strings"
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
	var later reply.Problems
	for _, b := range brains {
		p, err := openPart(ctx, b, req.Location)
		if err != nil {
			if ctx.Err() != nil {
				s.close()
				return nil, ctx.Err()
			}
			if len(brains) == 1 {
				return nil, err
			}
			s.missing = true
			later.AddError(b.Name, strings.ReplaceAll(err.Error(), b.Root, "<brain>"))
			continue
		}
		for _, pr := range p.cache.Status.Problems {
			later.Add(reply.Problem{Brain: b.Name, Error: pr.Error, File: pr.File})
		}
		if p.cache.Status.Stale {
			s.stale = append(s.stale, b.Name)
		}
		s.parts = append(s.parts, p)
	}
	for _, pr := range later.List() {
		s.probs.Add(pr)
	}
	if len(s.parts) == 0 {
		return nil, errors.New(msgNoBrain)
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

func openPart(ctx context.Context, b *brain.Brain, loc *time.Location) (*part, error) {
	c, tx, err := cache.Snapshot(ctx, b)
	if err != nil {
		return nil, err
	}
	p := &part{brain: b, name: b.Name, cache: c, tx: tx, low: map[string]bool{}}
	if p.days, err = cache.NoteDays(ctx, tx, loc); err != nil {
		p.close()
		return nil, cacheError(err)
	}
	var low []string
	if b.Config != nil {
		low = b.Config.LowPrioritySources()
	}
	for _, name := range low {
		p.low[name] = true
	}
	p.lowJSON = jsontext.Array(low)
	return p, nil
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
