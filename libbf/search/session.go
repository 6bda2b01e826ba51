package search

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
)

// Session is one search held open: the request parsed and every selected brain's cache
// open in one read snapshot. Run is a session ranking by words; other modes of search
// (package fuse) rank through a session's word ranking and cache snapshots, then print
// their own order with Page, so every mode shares the word search's items, excerpts,
// paging, coverage and problems.
type Session struct {
	pq                *parsed
	parts             []*part
	probs, brainProbs reply.Problems
	stale             []string
	single, missing   bool
	res               []*ranked
}

// Start validates a request and opens its brains. Invalid input fails with *InputError
// before any brain is read. Close the session when done.
func Start(ctx context.Context, req Request) (*Session, error) {
	pq, err := parse(req)
	if err != nil {
		return nil, err
	}
	s := &Session{pq: pq}
	for _, pr := range req.Problems {
		s.probs.Add(reply.Problem{Brain: pr.Brain, Error: pr.Error, File: pr.File})
	}
	if s.parts, err = open(ctx, req.Brains, pq.loc, &s.brainProbs, &s.stale); err != nil {
		return nil, err
	}
	s.single = len(req.Brains) == 1 && len(req.Problems) == 0
	s.missing = len(s.parts) < len(req.Brains)
	return s, nil
}

// Close releases the brains' caches.
func (s *Session) Close() { closeParts(s.parts) }

// rank runs the word or identity ranking of every brain for pq's page bound.
func (s *Session) rank(ctx context.Context, pq *parsed) error {
	res, err := run(ctx, pq, s.parts, s.missing, &s.probs)
	s.res = res
	return err
}

// checkSource fails a scope naming a source no brain searched.
func (s *Session) checkSource() error {
	if s.pq.scope.source == "" {
		return nil
	}
	for _, r := range s.res {
		if len(r.sources) > 0 {
			return nil
		}
	}
	if s.probs.Len() > 0 || s.brainProbs.Len() > 0 || len(s.stale) > 0 {
		return &notFoundError{Msg: msgIncomplete}
	}
	return &notFoundError{Msg: msgUnknownSource}
}

// identity reports whether a brain knows the query as an identity or tag.
func (s *Session) identity() bool {
	for _, r := range s.res {
		if r.exact {
			return true
		}
	}
	return false
}

// Hit is one ranked item of one brain of a session.
type Hit struct {
	// Brain is the index of the item's brain among the session's (see Brains).
	Brain int
	// ID is the item's id in that brain's cache.
	ID int64
	// Ref, Kind and Status are the item's; Time is when it last changed: a note's updated
	// day (as stored: 00:00 UTC of that day), a record's updated or event time, or "".
	Ref, Kind, Status, Time string
	// Source is a record's source.
	Source string
	// Score is the word ranking's score (0 for an item it did not rank).
	Score float64
	row   *row
}

func hitOf(i int, rw *row) Hit {
	t := rw.stored
	if rw.updated > t {
		t = rw.updated
	}
	return Hit{Brain: i, ID: rw.id, Ref: rw.ref, Kind: rw.kind, Status: rw.status, Time: t,
		Source: rw.source, Score: rw.score, row: rw}
}

// Decorator adds to a printed item what a mode of search explains about its hit; rank
// is the item's 1-based rank in the whole order.
type Decorator func(ctx context.Context, s *Session, h Hit, rank int64, it *reply.Item) error

// hook adapts a decorator to present's rows.
func (s *Session) hook(decorate Decorator) func(context.Context, *row, int64, *reply.Item) error {
	if decorate == nil {
		return nil
	}
	index := map[*part]int{}
	for i, p := range s.parts {
		index[p] = i
	}
	return func(ctx context.Context, rw *row, rank int64, it *reply.Item) error {
		return decorate(ctx, s, hitOf(index[rw.part], rw), rank, it)
	}
}

// Brains counts the brains that answered.
func (s *Session) Brains() int { return len(s.parts) }

// Brain returns the i-th brain that answered.
func (s *Session) Brain(i int) *brain.Brain { return s.parts[i].brain }

// DB is the i-th brain's cache snapshot, for read-only queries.
func (s *Session) DB(i int) *sql.Tx { return s.parts[i].tx }

// Query is the parsed query.
func (s *Session) Query() fold.Query { return s.pq.query }

// Low reports whether source is a low-priority source of the i-th brain.
func (s *Session) Low(i int, source string) bool {
	b := s.parts[i].brain
	return source != "" && b.Config != nil && b.Config.LowPriority(source)
}

// Words ranks every brain by the word (or identity) ranking, at most depth items each,
// and returns each brain's ranked items, best first. Paging does not apply: the caller
// orders items itself and prints them with Page.
func (s *Session) Words(ctx context.Context, depth int) ([][]Hit, error) {
	pq := *s.pq
	pq.offset, pq.limit = 0, depth-1
	if err := s.rank(ctx, &pq); err != nil {
		return nil, err
	}
	if err := s.checkSource(); err != nil {
		return nil, err
	}
	out := make([][]Hit, len(s.parts))
	for i, p := range s.parts {
		for _, r := range s.res {
			if r.part != p {
				continue
			}
			for _, rw := range r.rows {
				out[i] = append(out[i], hitOf(i, rw))
			}
		}
	}
	return out, nil
}

// loadSQL reads items by id within the scope.
const loadSQL = `WITH ` + cache.DaysCTE + `
SELECT ` + rowColumns + `, ` + timeExpr + ` AS time, '', i.title, 0, 0, '', ''
FROM items i ` + cache.DaysJoin + `
WHERE i.id IN (SELECT value FROM json_each(:ids)) AND ` + filters + `
ORDER BY i.id LIMIT ` + limitBound

// Load reads items of the i-th brain by id, keeping only those within the request's
// scope. Call it after Words.
func (s *Session) Load(ctx context.Context, i int, ids []int64) (map[int64]Hit, error) {
	out := map[int64]Hit{}
	if len(ids) == 0 {
		return out, nil
	}
	p := s.parts[i]
	var targets map[string]bool
	for _, r := range s.res {
		if r.part == p {
			targets = r.targets
		}
	}
	raw, _ := json.Marshal(ids)
	days, err := p.days.JSON(ctx)
	if err != nil {
		return nil, cacheError(err)
	}
	args := append(scopeArgs(p, s.pq.scope, targets, days), sql.Named("ids", string(raw)))
	rows, err := queryRows(ctx, p, render(loadSQL, s.pq.scope, int64(len(ids))), args)
	if err != nil {
		return nil, cacheError(err)
	}
	for _, rw := range rows {
		out[rw.id] = hitOf(i, rw)
	}
	return out, nil
}

// Page prints one page of the request (its offset and limit) over the given order: each
// brain's items best first, brains alternating by rank as word search does. decorate,
// when set, adds to each printed item what the caller explains about its hit.
func (s *Session) Page(ctx context.Context, lists [][]Hit, decorate Decorator) (*Reply, error) {
	var res []*ranked
	for _, list := range lists {
		r := &ranked{}
		for _, h := range list {
			if h.row != nil {
				r.rows = append(r.rows, h.row)
			}
		}
		res = append(res, r)
	}
	return s.present(ctx, mergeWords(res), s.hook(decorate))
}
