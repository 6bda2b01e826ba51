package cache

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Locks are flock(2) locks on files in .bf/, each taken on its own file descriptor, so two
// Opens in one process exclude each other exactly as two processes do.
//
//   - reader.lock: shared by every Open while it compares the brain with the cache and
//     refreshes it; exclusive for whoever changes records (a record transaction and its
//     recovery), so a reader never indexes a half-written transaction. Busy → the previous
//     generation is served as stale.
//   - writer.lock: exclusive for whoever changes the cache (an incremental refresh, a build).
//     Busy while a refresh is needed → the previous generation is served as stale.
//   - generation.lock: shared by every Cache for as long as it is open; exclusive for the
//     moment a build replaces the live file, so no connection ever reads a file whose -wal or
//     -shm name now belongs to another generation.
const generationLockFile = "generation.lock"

// errBusy reports a lock that another holder keeps.
var errBusy = errors.New("busy")

// pollInterval is how often a waiting lock is retried.
const pollInterval = 20 * time.Millisecond

// lock is one held flock.
type lock struct{ f *os.File }

// acquire takes the lock on .bf/name, shared or exclusive, waiting up to wait (0: try once).
// It fails with errBusy when the lock stays taken.
func acquire(ctx context.Context, dir, name string, exclusive bool, wait time.Duration) (*lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, dirError(err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return &lock{f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, &os.PathError{Op: "lock", Path: filepath.Join(dir, name), Err: err}
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, errBusy
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// release drops the lock; a nil lock is fine.
func (l *lock) release() {
	if l != nil && l.f != nil {
		l.f.Close() // closing the last descriptor releases the flock
		l.f = nil
	}
}
