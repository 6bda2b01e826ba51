package search

// The newest members of a large set (the items linking to an identity, a tag's members),
// found by walking items newest first instead of sorting every member.
//
// A person many records mention has thousands of linkers; sorting them all by time to keep
// a page of ten reads every linker's item row. Walking the items in time order through
// items_kind_time and probing each one's membership reads about page × items / members
// index entries instead: a few hundred when one item in ten is a member. The walk merges
// three streams, each newest first: notes with a day (placed at the day's local midnight),
// records with a time, and the members among records without one (sorted by when they
// were observed: usually none). It stops once the page is full and no unread item can be
// newer than its last row. When members are too few for the walk to pay, when it runs
// longer than expected, or when the page would reach the items that have no place in time,
// the caller sorts every member instead: both give the same page.

import (
	"context"
	"database/sql"
	"math"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/cache"
)

// The walk's thresholds (tests lower them to walk small brains): it is tried from
// walkFrom × √(limit × items) members on, and given up after walkSlack rows more than four
// times the rows the members promise.
var (
	walkFrom  = 2.0
	walkSlack = int64(256)
)

// member stands for the SQL condition that item i is a member, in the walk's queries.
const member = `{member}`

// Walk queries over items i: each returns id, key and membership, newest first.
const (
	walkNotesSQL = `SELECT i.id, i.time, ` + member + ` FROM items i
		WHERE i.kind = 'note' AND i.time > '' ORDER BY i.time DESC`
	walkRecordsSQL = `SELECT i.id, i.time, ` + member + ` FROM items i
		WHERE i.kind = 'record' AND i.time > '' ORDER BY i.time DESC`
	// untimedSQL lists the newest members among records without a time, by ref among equals.
	untimedSQL = `SELECT i.id, i.observed, 1 FROM items i
		WHERE i.kind = 'record' AND i.time = '' AND ` + member + `
		ORDER BY i.observed DESC, i.ref DESC LIMIT ` + limitBound
)

// membership describes a set of items for the walk: the condition on items i, and a
// query counting members up to {limit}.
type membership struct {
	member, count string
	args          []any
}

// cursor is one stream of the walk: its current row, and whether the stream has ended.
type cursor struct {
	rows *sql.Rows
	// days places a note's day in time; nil for records, whose key is their time.
	days *cache.Days
	id   int64
	key  string
	in   bool
	done bool
}

// next reads the stream's next row with a place in time; it reports a key that grew,
// which would break the walk's order.
func (c *cursor) next() (bool, error) {
	prev := c.key
	for c.rows.Next() {
		var t string
		var in int
		if err := c.rows.Scan(&c.id, &t, &in); err != nil {
			return false, err
		}
		c.in = in != 0
		if c.days == nil {
			c.key = t
		} else if c.key = c.days.At(t[:runeOffset(t, 10)]); c.key == "" {
			continue // a day without a midnight: no place in the walk's order
		}
		return prev == "" || c.key <= prev, nil
	}
	c.done = true
	return true, c.rows.Err()
}

// newest returns the ids of the limit newest members of m (all members tied with the
// last of them included), and false when the caller must sort every member instead.
func newest(ctx context.Context, p *part, m membership, limit int64) ([]int64, bool, error) {
	var top int64
	if err := p.tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM items`).Scan(&top); err != nil {
		return nil, false, err
	}
	// The walk reads about limit × items / members rows where the sort reads members, and
	// a row walked costs about twice a member sorted: it pays from about 2√(limit × items)
	// members on.
	enough := int64(walkFrom * math.Sqrt(float64(limit)*float64(top)))
	var members int64
	count := strings.Replace(m.count, limitBound, strconv.FormatInt(4*enough+1, 10), 1)
	if err := p.tx.QueryRowContext(ctx, count, m.args...).Scan(&members); err != nil {
		return nil, false, err
	}
	if members < max(enough, 1) {
		return nil, false, nil
	}
	budget := 4*limit*top/members + walkSlack

	fill := strings.NewReplacer(member, m.member, limitBound, strconv.FormatInt(limit, 10))
	var streams []*cursor
	defer func() {
		for _, c := range streams {
			c.rows.Close()
		}
	}()
	for _, q := range []struct {
		query string
		days  *cache.Days
	}{{walkNotesSQL, p.days}, {walkRecordsSQL, nil}, {untimedSQL, nil}} {
		rows, err := p.tx.QueryContext(ctx, fill.Replace(q.query), m.args...)
		if err != nil {
			return nil, false, err
		}
		c := &cursor{rows: rows, days: q.days}
		streams = append(streams, c)
		if ok, err := c.next(); err != nil || !ok {
			return nil, false, err
		}
	}
	var ids []int64
	last := "" // the key of the limit-th member
	for read := int64(0); ; read++ {
		var c *cursor
		for _, s := range streams {
			if !s.done && (c == nil || s.key > c.key) {
				c = s
			}
		}
		switch {
		case c == nil || c.key == "" || read > budget:
			// Every item with a place in time read, the items without one reached, or a walk
			// far longer than the members promised: sort instead.
			return nil, false, nil
		case int64(len(ids)) >= limit && c.key < last:
			return ids, true, nil
		}
		if c.in {
			ids = append(ids, c.id)
			if int64(len(ids)) == limit {
				last = c.key
			}
		}
		if ok, err := c.next(); err != nil || !ok {
			return nil, false, err
		}
	}
}
