package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/store"
)

// pendingLimit is how many unconfirmed items one page of bf review --unreviewed lists.
const pendingLimit = 50

// PendingItem is a note or record no one has confirmed.
type PendingItem struct {
	Ref   string `json:"ref"`
	Kind  string `json:"kind"` // note or record
	Path  string `json:"path"`
	Title string `json:"title"`
	// Why says what makes it unconfirmed: an agent's memory, a note marked unreviewed, or
	// a record collection did not write.
	Why string `json:"why"`
}

// PendingReply is one page of what waits for a person's review.
type PendingReply struct {
	Notice     string        `json:"notice"`
	Items      []PendingItem `json:"items"`
	Total      int           `json:"total"`
	NextOffset *int64        `json:"next_offset"`
	Accept     string        `json:"accept"`
	Reject     string        `json:"reject"`
}

// Reasons an item waits for review.
const (
	whyMemory = "saved by an agent; no person reviewed it"
	whyNote   = "marked review: unreviewed (or a malformed review mark)"
	whyRecord = "a record file collection did not write, or whose bytes changed since"
)

// Pending lists, from offset, the brain's notes and records no one has confirmed, by ref.
func (s *Store) Pending(ctx context.Context, offset int64) (*PendingReply, error) {
	if offset < 0 {
		return nil, inputf("--offset", "expected an integer of 0 or more")
	}
	c, err := cache.Open(ctx, s.Brain)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	db := c.DB()
	out := &PendingReply{Notice: notice, Items: []PendingItem{},
		Accept: "bf review --accept REF… (a note, a record ref SOURCE:ID, or memories/SOURCE for every record of a source)",
		Reject: "bf review --reject REF… (an agent's memory: moved to the memory history, as bf forget does)"}
	const from = ` FROM reviews r JOIN items i ON i.id = r.item WHERE r.state = '` + provenance.Unreviewed + `'`
	if err := db.QueryRowContext(ctx, `SELECT count(*)`+from).Scan(&out.Total); err != nil {
		return nil, cacheErr(err)
	}
	rows, err := db.QueryContext(ctx, `SELECT i.ref, i.kind, i.path, i.title`+from+` ORDER BY i.ref LIMIT ? OFFSET ?`, pendingLimit+1, offset)
	items, err := cache.ReadRows(rows, err, func(rows *sql.Rows) (PendingItem, error) {
		var it PendingItem
		err := rows.Scan(&it.Ref, &it.Kind, &it.Path, &it.Title)
		switch {
		case it.Kind == cache.KindRecord:
			it.Why = whyRecord
		case IsMemoryPath(it.Path):
			it.Why = whyMemory
		default:
			it.Why = whyNote
		}
		return it, err
	})
	if err != nil {
		return nil, cacheErr(err)
	}
	more := len(items) > pendingLimit
	out.Items = append(out.Items, items[:min(len(items), pendingLimit)]...)
	out.NextOffset = reply.NextOffset(offset, len(out.Items), more)
	return out, nil
}

// Decided is one item a review accepted or rejected.
type Decided struct {
	Ref string `json:"ref"`
	// Confirmed counts the record files a source's acceptance confirmed.
	Confirmed int    `json:"confirmed,omitempty"`
	History   string `json:"history,omitempty"`
}

// DecideReply is what a review changed.
type DecideReply struct {
	Action string    `json:"action"` // accepted or rejected
	Items  []Decided `json:"items"`
}

// target is what a REF argument of a review names.
type target struct {
	arg    string
	kind   string // note, record or source
	path   string // brain-relative file (note or record)
	source string
}

// resolve names what each argument of a review is, by the cache: a note's path, a record's
// ref or file, or a source folder memories/SOURCE. Nothing is changed before every
// argument resolved.
func (s *Store) resolve(ctx context.Context, flag string, args []string) ([]target, error) {
	if len(args) == 0 {
		return nil, inputf(flag, "name at least one REF: a note path, a record ref SOURCE:ID or memories/SOURCE")
	}
	c, err := cache.Open(ctx, s.Brain)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var out []target
	for _, a := range args {
		if src, ok := strings.CutPrefix(strings.TrimSuffix(a, "/"), "memories/"); ok && ref.ValidName(src) {
			out = append(out, target{arg: a, kind: "source", source: src})
			continue
		}
		var t target
		var source sql.NullString
		err := c.DB().QueryRowContext(ctx, `SELECT kind, path, source FROM items WHERE ref = ?1 OR path = ?1 LIMIT 1`, a).Scan(&t.kind, &t.path, &source)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, inputf(flag, "%q is no note or record of this brain; list what waits with bf review --unreviewed", a)
		}
		if err != nil {
			return nil, cacheErr(err)
		}
		t.arg, t.source = a, source.String
		out = append(out, t)
	}
	return out, nil
}

// Accept confirms what a person reviewed: a note's review mark is removed (nothing else in
// the file changes) and a record's current bytes join its source's ledger.
func (s *Store) Accept(ctx context.Context, args []string) (*DecideReply, error) {
	targets, err := s.resolve(ctx, "--accept", args)
	if err != nil {
		return nil, err
	}
	lk, err := s.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	out := &DecideReply{Action: "accepted", Items: []Decided{}}
	for _, t := range targets {
		d := Decided{Ref: t.arg}
		switch t.kind {
		case "source", cache.KindRecord:
			var names []string
			if t.kind == cache.KindRecord {
				names = []string{filepath.Base(t.path)}
				if !record.ValidFileName(names[0]) {
					return nil, fmt.Errorf("%s: not a record file name", t.path)
				}
			}
			if d.Confirmed, err = store.Adopt(ctx, s.Brain.Root, t.source, names, store.DefaultWait); err != nil {
				return nil, fmt.Errorf("%s: %w", t.arg, err)
			}
		default:
			if err := s.mark(t.path, false); err != nil {
				return nil, err
			}
		}
		out.Items = append(out.Items, d)
	}
	return out, nil
}

// Reject withdraws agent memories a person refused: each goes to the memory history, as
// bf forget does, and nothing else changes. Other notes and records are the person's to
// edit or remove.
func (s *Store) Reject(ctx context.Context, args []string) (*DecideReply, error) {
	targets, err := s.resolve(ctx, "--reject", args)
	if err != nil {
		return nil, err
	}
	for _, t := range targets {
		if t.kind != cache.KindNote || !IsMemoryPath(t.path) {
			return nil, inputf("--reject", "%s is not an agent memory; edit or remove it yourself, or accept it with --accept", t.arg)
		}
	}
	out := &DecideReply{Action: "rejected", Items: []Decided{}}
	for _, t := range targets {
		r, err := s.Forget(ctx, t.path)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, Decided{Ref: t.arg, History: r.History})
	}
	return out, nil
}

// mark sets or clears a note's review mark in place.
func (s *Store) mark(notePath string, unreviewed bool) error {
	file := filepath.Join(s.Brain.Root, filepath.FromSlash(notePath))
	st, err := os.Lstat(file)
	if err != nil {
		return fmt.Errorf("%s: %w", notePath, durable.Cause(err))
	}
	data, err := durable.ReadRegular(file, note.MaxBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", notePath, durable.Cause(err))
	}
	out, err := provenance.Mark(data, unreviewed)
	if err != nil {
		return fmt.Errorf("%s: %w", notePath, err)
	}
	if string(out) == string(data) {
		return nil
	}
	return durable.WriteFile(file, out, st.Mode().Perm())
}
