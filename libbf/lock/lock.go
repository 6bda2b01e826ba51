// Package lock holds advisory flock(2) locks on files in a private folder (a brain's .bf/,
// a machine state folder). Each Acquire opens its own descriptor, so two holders in one
// process exclude each other exactly as two processes do, and the kernel drops a lock the
// moment its holder dies: a killed writer never leaves a stale lock behind.
package lock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrBusy reports a lock that another holder kept for the whole wait.
var ErrBusy = errors.New("lock is busy")

// pollInterval is how often a waiting Acquire tries again. flock has no timed wait, and a
// blocking call could not be abandoned when ctx ends.
const pollInterval = 20 * time.Millisecond

// Lock is one held flock.
type Lock struct{ f *os.File }

// Acquire takes the lock on dir/name, shared or exclusive, creating the file (0600) when
// missing. It retries until wait has passed (0: one try) and then fails with ErrBusy; it
// stops early with ctx's error. dir must exist. A failure to open the file is returned as
// the *fs.PathError of the open, so callers can explain it for the folder they manage.
func Acquire(ctx context.Context, dir, name string, exclusive bool, wait time.Duration) (*Lock, error) {
	// O_NOFOLLOW: a symlink planted in the folder must not make us create or lock a file
	// elsewhere.
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, &os.PathError{Op: "lock", Path: path, Err: err}
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, ErrBusy
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// Release drops the lock. Releasing a nil or released Lock does nothing.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close() // the flock goes with the last descriptor of the open file
		l.f = nil
	}
}
