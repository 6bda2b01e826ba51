package queue

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
)

// owner identifies the process running an attempt. An attempt whose owner is gone was
// interrupted; the next command touching it records that. The test is built so that a
// live process is never taken for dead: whatever cannot be checked counts as alive.
//
//   - Host: another machine sharing the state folder cannot be checked, so its attempts
//     count as live until that machine records them.
//   - Boot: a different boot of this machine means the owner is gone.
//   - PID and Start: the process start time tells the owner from a later process that
//     reused its PID.
type owner struct {
	Host  string
	Boot  string
	PID   int
	Start int64
}

// self is the owner of attempts this process starts.
var self = sync.OnceValue(func() owner {
	host, _ := os.Hostname()
	pid := os.Getpid()
	start, _, _ := processStart(pid)
	return owner{Host: host, Boot: bootID(), PID: pid, Start: start}
})

// alive reports whether o may still be running.
func (o owner) alive() bool {
	me := self()
	if o.Host != me.Host {
		return true
	}
	if o.Boot != "" && me.Boot != "" && o.Boot != me.Boot {
		return false
	}
	if o.PID <= 0 {
		return false
	}
	if o.PID == me.PID && o.Start == me.Start {
		return true
	}
	start, gone, err := processStart(o.PID)
	switch {
	case gone:
		return false
	case err != nil:
		return true
	case o.Start != 0 && start != 0 && start != o.Start:
		return false
	}
	return true
}

// lease is the row of leases for one running attempt.
type lease struct {
	owner
	N     int
	Token string
}

func newToken() string {
	var b [16]byte
	rand.Read(b[:]) // crypto/rand never fails on supported platforms
	return hex.EncodeToString(b[:])
}

func takeLease(tx *sql.Tx, work string, n int, now int64) (string, error) {
	me := self()
	token := newToken()
	_, err := tx.ExecContext(ctx, `INSERT INTO leases (work, n, token, host, boot, pid, start, since)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, work, n, token, me.Host, me.Boot, me.PID, me.Start, now)
	return token, err
}

// leaseOf returns the lease of work, or nil when no attempt runs.
func leaseOf(tx *sql.Tx, work string) (*lease, error) {
	var l lease
	err := tx.QueryRowContext(ctx, "SELECT n, token, host, boot, pid, start FROM leases WHERE work = ?", work).
		Scan(&l.N, &l.Token, &l.Host, &l.Boot, &l.PID, &l.Start)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &l, nil
}

func dropLease(tx *sql.Tx, work string) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM meta WHERE key = ?", groupKey(work)); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, "DELETE FROM leases WHERE work = ?", work)
	return err
}

// group is the process group an attempt's program (a send command, a harness) runs in,
// recorded once it started. It may outlive the bf process owning the lease: a bf killed
// outright does not stop it. The start time of its leader tells it from a later group
// that reused the ID. The record lives in meta, keyed by groupKey, so the queue keeps
// its format.
type group struct {
	ID    int
	Start int64
}

func groupKey(work string) string { return "group:" + work }

// alive reports whether the group may still run: some process still belongs to it, and
// its leader, if still there, is the process that started it. Whatever cannot be checked
// counts as alive.
func (g group) alive() bool {
	if g.ID <= 0 {
		return false
	}
	if !groupExists(g.ID) {
		return false
	}
	start, gone, err := processStart(g.ID)
	if err == nil && !gone && g.Start != 0 && start != 0 && start != g.Start {
		// The ID now leads another process's group: a group ID is never reused while
		// any member of the group lives, so the recorded one ended.
		return false
	}
	return true
}

// groupOf returns the recorded process group of work's running attempt, if any.
func groupOf(tx *sql.Tx, work string) (group, bool, error) {
	var v string
	err := tx.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", groupKey(work)).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return group{}, false, nil
	}
	if err != nil {
		return group{}, false, err
	}
	var g group
	if _, err := fmt.Sscanf(v, "%d %d", &g.ID, &g.Start); err != nil {
		// An unreadable record cannot prove the group ended.
		return group{ID: -1}, true, nil
	}
	return g, true, nil
}

// running tells whether the attempt l of work may still run: its owner lives, or the
// owner on this machine and boot died while the attempt's process group lives on
// (orphan > 0 names that group, or is -1 when its record is unreadable).
func running(tx *sql.Tx, work string, l *lease) (live bool, orphan int, err error) {
	if l == nil {
		return false, 0, nil
	}
	if l.alive() {
		return true, 0, nil
	}
	me := self()
	if l.Host != me.Host || (l.Boot != "" && me.Boot != "" && l.Boot != me.Boot) {
		return false, 0, nil
	}
	g, ok, err := groupOf(tx, work)
	if err != nil || !ok {
		return false, 0, err
	}
	if g.ID == -1 {
		return true, -1, nil
	}
	if g.alive() {
		return true, g.ID, nil
	}
	return false, 0, nil
}

// noteGroup records pgid as the process group of work's attempt holding token. An attempt
// already recorded (its lease gone or another's) is left alone.
func (q *Queue) noteGroup(work, token string, pgid int) error {
	start, _, _ := processStart(pgid)
	return q.write("record an attempt's process group in", func(tx *sql.Tx) error {
		l, err := leaseOf(tx, work)
		if err != nil || l == nil || l.Token != token {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
			groupKey(work), fmt.Sprintf("%d %d", pgid, start))
		return err
	})
}

// Started records pgid as the process group of the send command this attempt started
// (see proc.Spec.Started), so that while the command outlives a killed bf, retry, cancel
// and recovery still count the attempt as running. It is best effort: a failure to record
// leaves only the protection against that case, and Finish reports the queue's trouble.
func (a *Attempt) Started(pgid int) { a.q.noteGroup(a.delivery.ID, a.token, pgid) }

// Started records pgid as the process group of the harness this run started; see
// Attempt.Started.
func (r *Run) Started(pgid int) { r.q.noteGroup(r.job.ID, r.token, pgid) }
