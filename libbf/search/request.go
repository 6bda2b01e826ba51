// Package search answers bf search over one or several brains: word search ranked by
// BM25 with dedup and excerpts, identity and tag search, scopes, unmatched terms and
// spelling suggestions, source coverage, and pages that continue at next_offset.
//
// Run opens each brain's cache (which refreshes it), ranks per brain, then alternates the
// brains' results by rank. Replies follow the search reply schema; see package reply for
// what they share with reads.
package search

import (
	"fmt"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/terms"
)

// Limits of a request.
const (
	// DefaultLimit is the page size without --limit.
	DefaultLimit = 10
	// MaxLimit is the largest page size.
	MaxLimit = 50
)

// Request is one search.
type Request struct {
	// Query is the words, phrases and prefixes, or an identity, as typed.
	Query string
	// Scope is one scope as typed, or "".
	Scope string
	// Limit is the page size, 1–50; 0 means DefaultLimit.
	Limit int
	// Offset continues at a previous reply's next_offset.
	Offset int64
	// Brains are the selected brains, in selection order.
	Brains []*brain.Brain
	// Problems are the brains selection skipped; with any, items name their brain.
	Problems []brain.Problem
	// Now is the time periods end at; zero means time.Now().
	Now time.Time
	// Location is the local time zone of periods and replies; nil means time.Local.
	Location *time.Location
}

// Reply is the search reply.
type Reply struct {
	// Fused describes a fused search: its query class, weights and missing strategies.
	Fused *reply.Fused `json:"fused,omitempty"`
	// Identity is "unknown" when the query has the shape of an identity that no selected
	// brain knows: the items are then a word search.
	Identity string       `json:"identity,omitempty"`
	Items    []reply.Item `json:"items"`
	// NextOffset is where the next page starts, when there is one.
	NextOffset *int64          `json:"next_offset,omitempty"`
	Notice     string          `json:"notice"`
	Problems   []reply.Problem `json:"problems,omitempty"`
	// Sources is the collection coverage of the searched sources that matter here.
	Sources []reply.Coverage `json:"sources,omitempty"`
	// SourcesOmitted counts the searched sources left out of Sources.
	SourcesOmitted int      `json:"sources_omitted,omitempty"`
	Stale          []string `json:"stale,omitempty"`
	// Suggestions are close indexed words for unmatched words.
	Suggestions map[string][]string `json:"suggestions,omitempty"`
	// Unmatched are the terms no selected brain holds, whatever the scope.
	Unmatched []string `json:"unmatched,omitempty"`
}

// InputError is invalid input naming its argument; notFoundError a scope naming a source
// no selected brain holds. Both are the replies' shared errors.
type (
	InputError    = reply.InputError
	notFoundError = reply.NotFoundError
)

// Messages of failures.
const (
	msgUnknownSource = "unknown source; read memories to list sources"
	msgIncomplete    = "not found in the readable evidence; run bf status before concluding it is absent"
)

// ErrLimit is the reason a limit outside 1–50 is invalid.
var ErrLimit = fmt.Errorf("expected an integer from 1 to %d", MaxLimit)

// parsed is a validated request.
type parsed struct {
	query  fold.Query
	text   string // the query, stripped: the identity text when it is one
	scope  scope
	limit  int
	offset int64
	now    time.Time
	loc    *time.Location
}

// Check validates a request without reading any brain: the scope, the query, the limit
// and the offset. Its errors are *InputError.
func Check(req Request) error {
	_, err := parse(req)
	return err
}

func parse(req Request) (*parsed, error) {
	p := &parsed{limit: req.Limit, offset: req.Offset, now: req.Now, loc: req.Location}
	if p.loc == nil {
		p.loc = time.Local
	}
	if p.now.IsZero() {
		p.now = time.Now()
	}
	if p.limit == 0 {
		p.limit = DefaultLimit
	}
	if p.limit < 1 || p.limit > MaxLimit {
		return nil, &InputError{Argument: "limit", Err: ErrLimit}
	}
	if err := reply.CheckOffset(p.offset); err != nil {
		return nil, &InputError{Argument: "offset", Err: err}
	}
	// The scope first: a query without words names the query only when the scope is fine.
	sc, err := parseScope(req.Scope, p.now, p.loc)
	if err != nil {
		return nil, &InputError{Argument: "scope", Err: err}
	}
	p.scope = sc
	q, err := fold.ParseWith(req.Query, functionWord)
	if err != nil {
		return nil, &InputError{Argument: "query", Err: err}
	}
	p.query = q
	p.text = q.Identity
	return p, nil
}

// functionWord reports whether a query word drops as a function word: one of the list, or a
// word the index's stemmer turns into one (having → have, beings → be), which would
// otherwise match every passage holding that function word.
func functionWord(word string) bool {
	if fold.IsFunctionWord(word) {
		return true
	}
	stem := firstTerm(terms.Terms(word))
	return stem != "" && fold.IsFunctionWord(stem)
}

// IsInput reports whether err is invalid input.
func IsInput(err error) bool { return reply.IsInput(err) }
