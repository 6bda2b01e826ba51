package queue

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
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
	_, err := tx.ExecContext(ctx, "DELETE FROM leases WHERE work = ?", work)
	return err
}
