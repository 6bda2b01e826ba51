package cache

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/brain"
)

// unavailableError is a query of a generation that failed. It reads the same whatever the
// cause and keeps the cause, so Heal can tell damage from other failures.
type unavailableError struct{ Err error }

func (e *unavailableError) Error() string { return "the search cache is unavailable; run bf build" }

func (e *unavailableError) Unwrap() error { return e.Err }

// Unavailable names the cache in a database failure of a reader; a cancellation is kept as
// is, and nil stays nil.
func Unavailable(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &unavailableError{Err: err}
}

// Heal discards the live generation of every brain whose cache file is damaged (SQLite
// reported SQLITE_CORRUPT or SQLITE_NOTADB in err, and PRAGMA quick_check confirms it; or,
// for one brain, err is a value no build writes), so
// the next Open rebuilds it, as a generation damaged as a whole already is. It reports
// whether one was discarded: the caller, having closed its caches, then runs once more.
func Heal(ctx context.Context, brains []*brain.Brain, err error) bool {
	if !isDamaged(err) {
		return false
	}
	healed := false
	cause := err
	if len(brains) > 1 {
		// The error does not say which brain it came from: only those quick_check finds
		// damaged are discarded.
		cause = nil
	}
	for _, b := range brains {
		if ok, _ := discardDamaged(ctx, b.Root, cause); ok {
			healed = true
		}
	}
	return healed
}

// errDamaged is a generation PRAGMA quick_check found damaged.
var errDamaged = errors.New("the search cache in .bf is damaged")

// Check runs PRAGMA quick_check over the open generation: nil when it is sound.
func (c *Cache) Check(ctx context.Context) error {
	if confirmDamage(ctx, c.db, nil) {
		return errDamaged
	}
	return nil
}

// discardDamaged removes the brain's live generation when quick_check finds it damaged,
// under the writer lock and the generation lock, so no build or reader is using it.
func discardDamaged(ctx context.Context, root string, cause error) (bool, error) {
	dir := filepath.Join(root, Dir)
	live := filepath.Join(dir, IndexFile)
	if st, err := os.Lstat(live); err != nil || !st.Mode().IsRegular() {
		return false, err
	}
	writer, err := acquire(ctx, dir, WriterLockFile, true, missingWait)
	if err != nil {
		return false, err
	}
	defer releaseWriter(dir, writer)
	release, err := holdGeneration(ctx, dir)
	if err != nil {
		return false, err
	}
	defer release()
	db, err := openFile(live, true)
	if err != nil {
		return false, err
	}
	damaged := confirmDamage(ctx, db, cause)
	db.Close()
	if !damaged || ctx.Err() != nil {
		return false, ctx.Err()
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(live + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, dirError(err)
		}
	}
	return true, nil
}
