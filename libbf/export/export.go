// Package export answers bf export: the selected brains as JSON Lines, one compact object
// with sorted keys per line, streamed from each brain's cache row by row so a brain of any
// size costs the same memory.
//
// Three kinds of rows:
//   - items (the default): every note and record, ordered by brain then ref — brain, uri,
//     ref, kind, path, title, a note's date, type, status, tags and task counts, a record's
//     source, time, url, updated, observed and partial, the excerpt, and every declared
//     field value as stored;
//   - edges: every claim a note or record states, typed and untyped links alike, in the
//     order each item states them — brain, subject, relation (absent for an untyped
//     link), target, origin and the stating item's date or time;
//   - identities: every explicit identity an item answers to (its entity, aliases and
//     resource identities; never its own bf:// address) — brain, identity and ref.
//
// Instants are shown like replies show them: in the local time zone, to the second.
// A scope narrows the rows to items under a folder or a whole note, memories, one
// source (optionally within a period, its undated records or one record file), or a
// period; edges and identities follow the items that state them. Identity and tag scopes
// are refused: an export is a dump of stored rows, and those scopes select by the graph.
//
// Skipped files, unavailable brains and stale caches do not stop the export: every row
// that can be read is written, then Write returns an *IncompleteError listing them, which
// bf export prints to stderr before exiting 1.
package export

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Kinds of rows.
const (
	kindItems      = "items"
	kindEdges      = "edges"
	kindIdentities = "identities"
)

// Request is one export.
type Request struct {
	// Kind is items (the default when ""), edges or identities.
	Kind string
	// Scope is one scope as typed, or "".
	Scope string
	// Brains are the selected brains, in selection order.
	Brains []*brain.Brain
	// Problems are the brains selection skipped; they make the export incomplete.
	Problems []brain.Problem
	// Now is the time trailing periods end at; zero means time.Now().
	Now time.Time
	// Location is the local time zone of periods and instants; nil means time.Local.
	Location *time.Location
}

// IncompleteError reports an export that wrote every row it could read while evidence
// was skipped: files the caches skipped, brains that could not be read, and brains
// served from a stale cache.
type IncompleteError struct {
	Problems []reply.Problem
	Stale    []string
}

func (e *IncompleteError) Error() string {
	var parts []string
	if n := len(e.Problems); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, "problem", "problems")))
	}
	if n := len(e.Stale); n > 0 {
		parts = append(parts, fmt.Sprintf("%d stale %s (%s)", n, plural(n, "brain", "brains"), strings.Join(e.Stale, ", ")))
	}
	return "the export is incomplete: " + strings.Join(parts, " and ") + "; run bf status"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

var errKind = errors.New("expected items, edges or identities")

// msgUnknownSource fails a source scope that no selected brain indexes or configures.
const msgUnknownSource = "unknown source; read memories to list sources"

// Check validates a request without reading any brain: the kind and the scope. Its errors
// are *reply.InputError.
func Check(req Request) error {
	_, _, err := parseRequest(req)
	return err
}

func parseRequest(req Request) (string, scope, error) {
	kind := req.Kind
	if kind == "" {
		kind = kindItems
	}
	if kind != kindItems && kind != kindEdges && kind != kindIdentities {
		return "", scope{}, &reply.InputError{Argument: "kind", Err: errKind}
	}
	now, loc := req.Now, req.Location
	if now.IsZero() {
		now = time.Now()
	}
	if loc == nil {
		loc = time.Local
	}
	sc, err := parseScope(req.Scope, now, loc)
	if err != nil {
		return "", scope{}, &reply.InputError{Argument: "scope", Err: err}
	}
	return kind, sc, nil
}

// part is one brain that answered, read in one snapshot.
type part struct {
	b     *brain.Brain
	cache *cache.Cache
	tx    *sql.Tx
}

func (p *part) close() {
	p.tx.Rollback()
	p.cache.Close()
}

// Write writes the rows of the selected brains to w, brain by brain in selection order.
//
// Invalid input fails with *reply.InputError before any brain is read; a source scope
// naming a source no selected brain indexes or configures fails with
// *reply.NotFoundError before any row is written. A brain that cannot be read is a
// problem while another answers. After the last row, skipped evidence makes Write return
// an *IncompleteError.
func Write(ctx context.Context, w io.Writer, req Request) error {
	kind, sc, err := parseRequest(req)
	if err != nil {
		return err
	}
	loc := req.Location
	if loc == nil {
		loc = time.Local
	}
	var probs reply.Problems
	for _, pr := range req.Problems {
		probs.Add(reply.Problem{Brain: pr.Brain, Error: pr.Error, File: pr.File})
	}
	var stale []string
	readings, err := cache.OpenReadings(ctx, req.Brains, loc, false, &probs, &stale)
	if err != nil {
		return err
	}
	parts := make([]*part, len(readings))
	for i, r := range readings {
		parts[i] = &part{b: r.Brain, cache: r.Cache, tx: r.Tx}
	}
	defer func() {
		for _, p := range parts {
			p.close()
		}
	}()
	if sc.source != "" {
		known, err := sourceKnown(ctx, parts, sc.source)
		if err != nil {
			return err
		}
		if !known {
			if probs.Len() > 0 || len(stale) > 0 {
				return &reply.NotFoundError{Msg: "not found in the readable evidence; run bf status before concluding it is absent"}
			}
			return &reply.NotFoundError{Msg: msgUnknownSource}
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, p := range parts {
		var err error
		switch kind {
		case kindItems:
			err = writeItems(ctx, bw, p, sc, loc)
		case kindEdges:
			err = writeEdges(ctx, bw, p, sc, loc)
		case kindIdentities:
			err = writeIdentities(ctx, bw, p, sc, loc)
		}
		if err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if probs.Len() > 0 || len(stale) > 0 {
		return &IncompleteError{Problems: probs.List(), Stale: stale}
	}
	return nil
}

// cacheError names the cache in a database failure.
func cacheError(err error) error {
	return cache.Unavailable(err)
}

// sourceKnown reports whether a selected brain indexes records of source or declares a
// sensor of that name.
func sourceKnown(ctx context.Context, parts []*part, source string) (bool, error) {
	for _, p := range parts {
		if p.b.Config != nil {
			if _, ok := p.b.Config.Sensors[source]; ok {
				return true, nil
			}
		}
		var one int
		err := p.tx.QueryRowContext(ctx, `SELECT 1 FROM items WHERE kind = 'record' AND source = ? LIMIT 1`, source).Scan(&one)
		if err == nil {
			return true, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return false, cacheError(err)
		}
	}
	return false, nil
}

// line writes one row: compact JSON with sorted keys, as replies are printed, and a
// newline.
func line(w *bufio.Writer, v any) error {
	b, err := reply.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	return w.WriteByte('\n')
}

// placed holds what a scope's period looks at: an item's kind, time and observed time.
type placed struct {
	kind, time, observed string
}

// at is where a period places the item, canonical UTC: a note at the local midnight of
// its day, a record at its event time, else its observed time; "" when undated.
func (pl placed) at(loc *time.Location) string {
	if pl.kind == cache.KindNote {
		if len(pl.time) < 10 {
			return ""
		}
		day, err := timestamp.ParseDay(pl.time[:10], loc)
		if err != nil {
			return ""
		}
		return timestamp.Canonical(day)
	}
	if pl.time != "" {
		return pl.time
	}
	return pl.observed
}

// keep applies the parts of a scope that SQL leaves to Go: the period.
func (s scope) keep(pl placed, loc *time.Location) bool {
	if !s.period {
		return true
	}
	at := pl.at(loc)
	return at != "" && at >= s.since && at < s.until
}

// filterSQL restricts items i to the scope's folder, file, source and undated records.
const filterSQL = `(:prefix = '' OR i.path = :prefix OR substr(i.path, 1, length(:prefix) + 1) = :prefix || '/')
	AND (:source = '' OR (i.kind = 'record' AND i.source = :source))
	AND (:undated = 0 OR (i.kind = 'record' AND i.time = ''))`

func (s scope) args() []any {
	undated := 0
	if s.undated {
		undated = 1
	}
	return []any{sql.Named("prefix", s.prefix), sql.Named("source", s.source), sql.Named("undated", undated)}
}

// local shows a canonical instant in loc.
func local(s string, loc *time.Location) string { return reply.Local(s, loc) }

// rawFields keeps a stored fields object as it is, or nothing.
func rawFields(s string) json.RawMessage {
	if s == "" || s == "{}" {
		return nil
	}
	return json.RawMessage(s)
}
