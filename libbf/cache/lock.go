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
//   - turnstile.lock: shared for the moment an Open takes generation.lock; exclusive for a
//     swap before it takes generation.lock, so readers cannot starve it (see below).
//   - build.lock: exclusive for the whole of a full build; shared for the instant a
//     short-lived reader's Open checks whether a build runs (yield.go).
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

// turnstileLockFile makes the generation lock writer-preferring. flock(2) grants a shared
// lock whenever no exclusive one is held, so searches that overlap without pause would keep
// a build from ever taking generation.lock exclusive. A reader takes the turnstile shared
// only for the moment it takes generation.lock shared; a build takes it exclusive first,
// which no reader holds for long, so from then on no new reader enters, the open ones
// finish, and the swap follows within the longest of them.
const turnstileLockFile = "turnstile.lock"

// Test hooks: onTurnstile runs when a swap holds the turnstile, onSwap when it also holds
// the generation lock.
var onTurnstile, onSwap func()

// enterGeneration takes the generation lock shared, as every open Cache holds it, after
// passing the turnstile.
func enterGeneration(ctx context.Context, dir string) (*lock, error) {
	turn, err := acquire(ctx, dir, turnstileLockFile, false, swapWait)
	if err != nil {
		return nil, err
	}
	defer turn.release()
	return acquire(ctx, dir, generationLockFile, false, swapWait)
}

// holdGeneration takes the generation lock exclusive, for replacing or removing the live
// file: first the turnstile, so readers arriving meanwhile wait instead of overtaking.
// release drops both.
func holdGeneration(ctx context.Context, dir string) (release func(), err error) {
	turn, err := acquire(ctx, dir, turnstileLockFile, true, swapWait)
	if err != nil {
		return nil, err
	}
	if onTurnstile != nil {
		onTurnstile()
	}
	gen, err := acquire(ctx, dir, generationLockFile, true, swapWait)
	if err != nil {
		turn.release()
		return nil, err
	}
	if onSwap != nil {
		onSwap()
	}
	return func() { gen.release(); turn.release() }, nil
}
