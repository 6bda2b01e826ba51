package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Snapshot opens b's cache as Open does and starts a read-only transaction on it, so that
// every question one command asks sees one state of the cache. Roll the transaction back,
// then close the cache.
func Snapshot(ctx context.Context, b *brain.Brain) (*Cache, *sql.Tx, error) {
	c, err := Open(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	tx, err := c.DB().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		c.Close()
		return nil, nil, Unavailable(err)
	}
	return c, tx, nil
}

// NoteDays maps every day a note of the cache is dated to that day's midnight in loc, as a
// JSON object that queries bind to place notes in time. The days are kept in note_days by
// every build and refresh (keepNoteDays), so a command reads a few pages, not the index of
// every note.
func NoteDays(ctx context.Context, q Querier, loc *time.Location) (string, error) {
	days, err := Strings(ctx, q, `SELECT day FROM note_days`)
	if err != nil {
		return "", err
	}
	m := make(map[string]string, len(days))
	for _, day := range days {
		if at := midnight(day, loc); at != "" {
			m[day] = at
		}
	}
	b, err := json.Marshal(m)
	return string(b), err
}

// midnight is day's midnight in loc, canonical UTC, or "" when day is not a calendar day.
func midnight(day string, loc *time.Location) string {
	t, err := timestamp.ParseDay(day, loc)
	if err != nil {
		return ""
	}
	return timestamp.Canonical(t)
}

// Days places the notes of one snapshot in time for one location, as NoteDays does, but
// only as far as a command asks: a note's day is converted when a row of the note is read,
// and the list of every day, about 1 ms on a brain of 10,000 notes, is read only for a
// query that binds it. Its methods may be called from several goroutines.
type Days struct {
	q   Querier
	loc *time.Location

	mu   sync.Mutex
	json string
	at   map[string]string
}

// NewDays places the notes q reads in time in loc.
func NewDays(q Querier, loc *time.Location) *Days {
	return &Days{q: q, loc: loc, at: map[string]string{}}
}

// JSON is NoteDays, read on first use.
func (d *Days) JSON(ctx context.Context) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.json == "" {
		js, err := NoteDays(ctx, d.q, d.loc)
		if err != nil {
			return "", err
		}
		d.json = js
	}
	return d.json, nil
}

// At is where a note dated day sits in time: the day's midnight in the location, canonical
// UTC, as JSON maps it, or "" when day is not a calendar day. Every note's day is among
// the days JSON lists (note_days is written with the notes), so the two agree.
func (d *Days) At(day string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	at, ok := d.at[day]
	if !ok {
		at = midnight(day, d.loc)
		d.at[day] = at
	}
	return at
}

// noteDaysSQL lists the days of note_days from items. A note's time is its day at
// 00:00:00Z, so its distinct times are its distinct days: a skip-scan seeks items_kind_time
// once per day instead of reading every note's index entry.
const noteDaysSQL = `WITH RECURSIVE d(time) AS (
		SELECT (SELECT min(time) FROM items WHERE kind = 'note' AND time > '')
		UNION ALL SELECT (SELECT min(time) FROM items WHERE kind = 'note' AND time > d.time)
		FROM d WHERE d.time IS NOT NULL)
	SELECT substr(time, 1, 10) FROM d WHERE time IS NOT NULL`

// keepNoteDays replaces note_days with the days of the notes items holds now.
func keepNoteDays(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM note_days`); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO note_days(day) `+noteDaysSQL)
	return err
}

// SQL that places notes in time in a query over items i that binds NoteDays as :days:
// DaysCTE defines the table days(day, at) and DaysJoin joins a note to its local midnight
// d.at.
const (
	DaysCTE  = `days(day, at) AS MATERIALIZED (SELECT key, value FROM json_each(:days))`
	DaysJoin = `LEFT JOIN days d ON i.kind = 'note' AND d.day = substr(i.time, 1, 10)`
)
