package cache

import (
	"context"
	"errors"
	"time"

	flock "github.com/bfgo/bf/libbf/lock"
)

// Locks are flock(2) locks on files in .bf/ (package lock), each taken on its own file
// descriptor, so two Opens in one process exclude each other exactly as two processes do.
//
//   - reader.lock: shared by every Open while it compares the brain with the cache and
//     refreshes it; exclusive for whoever changes records (a record transaction and its
//     recovery, in package store), so a reader never indexes a half-written transaction.
//     Busy → the previous generation is served as stale.
//   - writer.lock: exclusive for whoever changes the cache (an incremental refresh, a build).
//     Busy while a refresh is needed → the previous generation is served as stale.
//   - generation.lock: shared by every Cache for as long as it is open; exclusive for the
//     moment a build replaces the live file, so no connection ever reads a file whose -wal or
//     -shm name now belongs to another generation.
const generationLockFile = "generation.lock"

// errBusy reports a lock that another holder keeps.
var errBusy = flock.ErrBusy

// lock is one held lock; a nil *lock may be released.
type lock struct{ l *flock.Lock }

// acquire takes the lock on .bf/name, shared or exclusive, waiting up to wait (0: try once).
// It fails with errBusy when the lock stays taken.
func acquire(ctx context.Context, dir, name string, exclusive bool, wait time.Duration) (*lock, error) {
	l, err := flock.Acquire(ctx, dir, name, exclusive, wait)
	if err != nil {
		if errors.Is(err, errBusy) || ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, dirError(err)
	}
	return &lock{l}, nil
}

// release drops the lock.
func (l *lock) release() {
	if l != nil {
		l.l.Release()
	}
}
