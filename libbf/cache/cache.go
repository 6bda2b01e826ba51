// Package cache keeps .bf/index.sqlite, the disposable SQLite index of one brain's notes
// and records that search and read query, fresh from the brain's files.
//
// Open returns a generation ready to read: it compares file fingerprints with the brain
// on every call and refreshes what changed incrementally, or serves the previous generation
// as stale while another writer holds the brain. Build writes a whole new generation beside
// the live one and swaps it in. The cache can always be deleted: nothing in it is lost.
//
// Tables documents the layout readers query (see schema.go); schemaVersion is its version.
//
// Choices the cache makes:
//   - links holds link targets and relation field targets; tag membership lives only in tags
//     (and as tagged-with edges), since a link to a tag page adds no membership;
//   - tasks, tasks_open, tasks_done and next are filled only for notes whose tasks count
//     (note.CountsTasks), so readers need no second filter;
//   - a link's origin is the section the note package assigns it, so a link under the H1 that
//     opens a note has the origin path#slug-of-that-H1;
//   - the 5-second settle time compares a source folder's mtime with the clock;
//   - a record file edited in place once its folder has settled leaves the folder's
//     fingerprint unchanged, so Open keeps the stored version; the next bf build, which
//     lists every source, sees the edit.
package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/internal/keepsync"
	"github.com/bfgo/bf/libbf/scan"
	"github.com/bfgo/bf/libbf/store"
)

// maxProblems is how many skipped files Status lists per brain before one summary problem.
const maxProblems = 200

// Waits.
const (
	// missingWait is how long Open waits for another writer when no generation can be served.
	missingWait = 120 * time.Second
	// swapWait is how long a build waits for open caches to close before replacing the file.
	swapWait = 30 * time.Second
)

// Status says how complete and how fresh an opened cache is.
type Status struct {
	// Problems are the files skipped (at most maxProblems, then one "N more" problem) and
	// the folders that could not be listed. An answer that omits them may be incomplete.
	Problems []brain.Problem `json:"problems,omitempty"`
	// Stale is true when another writer held the brain and the previous generation is served.
	Stale bool `json:"stale,omitempty"`
}

// Cache is one brain's generation, open for reading until Close.
type Cache struct {
	Status Status
	db     *sql.DB
	gen    *lock
}

// DB is the read-only (query_only) connection pool of the generation.
func (c *Cache) DB() *sql.DB { return c.db }

// Close closes the database and lets a build replace the generation.
func (c *Cache) Close() error {
	if c == nil || c.db == nil {
		return nil
	}
	err := c.db.Close()
	c.db = nil
	c.gen.release()
	return err
}

// clock is the time source of the settle rule; tests move it forward.
var clock = time.Now

// errNeedBuild says the live generation is missing, incompatible or damaged.
var errNeedBuild = errors.New("need a build")

// busyLock says a fresh open found the brain held: by a writer refreshing or replacing the
// generation, or by a record writer while files are to be compared.
type busyLock struct{ name string }

func (e *busyLock) Error() string { return ".bf/" + e.name + " is held" }

// freshWait is how long OpenFresh waits for the brain to be free before it serves the
// previous generation, as Open does: long enough for another open's refresh, short enough
// that a prompt hook does not wait out a whole bf build.
var freshWait = 3 * time.Second

// Open opens the brain's cache for reading, refreshing it first (reporting the files it
// indexes to the context's WithProgress). While another writer holds the brain it serves
// the previous generation, marked Stale.
func Open(ctx context.Context, b *brain.Brain) (*Cache, error) { return open(ctx, b, false) }

// OpenFresh is Open for a reader that must see the files written before it was called,
// such as a recall right after a remember. While another writer holds the brain, Open
// serves the previous generation, which may predate those files; OpenFresh first waits for
// that writer (another open's refresh takes moments) and refreshes itself. Only when the
// brain stays held for freshWait (a bf build) does it serve the previous generation, Stale.
func OpenFresh(ctx context.Context, b *brain.Brain) (*Cache, error) { return open(ctx, b, true) }

func open(ctx context.Context, b *brain.Brain, fresh bool) (*Cache, error) {
	dir, err := prepareDir(b.Root)
	if err != nil {
		return nil, err
	}
	if err := store.Check(b.Root); err != nil {
		return nil, err
	}
	if bad, err := store.Interrupted(b.Root); err != nil {
		return nil, err
	} else if bad {
		return nil, store.ErrInterrupted
	}
	yieldToBuild(ctx, dir)
	ix := newIndexer(b)
	sig := signature(b)
	deadline := time.Now().Add(freshWait)
	for rebuilt := false; ; rebuilt = true {
		c, err := openOnce(ctx, b, dir, ix, sig, fresh)
		for held := (*busyLock)(nil); errors.As(err, &held); {
			// The wait holds no other lock: a build holding the writer lock may need the
			// record lock that a waiting comparison would keep shared.
			l, lerr := acquire(ctx, dir, held.name, held.name == WriterLockFile, max(time.Until(deadline), time.Millisecond))
			switch {
			case errors.Is(lerr, errBusy):
				c, err = openOnce(ctx, b, dir, ix, sig, false)
			case lerr != nil:
				return nil, lerr
			default:
				l.release()
				c, err = openOnce(ctx, b, dir, ix, sig, fresh)
			}
		}
		if !errors.Is(err, errNeedBuild) {
			return c, err
		}
		if rebuilt {
			return nil, errors.New("the search cache in .bf could not be rebuilt; run bf build")
		}
		var unusable uint64
		if st, err := os.Lstat(filepath.Join(dir, IndexFile)); err == nil {
			unusable = inodeOf(st)
		}
		if _, err := build(ctx, b, dir, progressOf(ctx), true, unusable); err != nil {
			return nil, err
		}
	}
}

// openOnce opens the live generation, refreshing it when it can. It returns errNeedBuild
// when there is no generation to refresh and, when fresh, a *busyLock where it would serve
// the previous generation.
func openOnce(ctx context.Context, b *brain.Brain, dir string, ix *indexer, sig string, fresh bool) (*Cache, error) {
	gen, err := enterGeneration(ctx, dir)
	if err != nil {
		return nil, busyError(err, "a build is replacing the search cache in .bf")
	}
	c := &Cache{gen: gen}
	ok := false
	defer func() {
		if !ok {
			gen.release()
		}
	}()
	live := filepath.Join(dir, IndexFile)
	st, err := os.Lstat(live)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNeedBuild
	}
	if err != nil {
		return nil, dirError(err)
	}
	if !st.Mode().IsRegular() {
		return nil, errNeedBuild
	}
	if err := checkSeal(ctx, dir, st); err != nil {
		return nil, errNeedBuild // changed outside bf: rebuilt once
	}
	ino := st.Sys().(*syscall.Stat_t).Ino

	// The read-only pool the Cache serves also does the checks and comparisons; the
	// writable connection is opened only to refresh (one connection less to open and
	// whose schema to read on a warm open).
	ro, err := openFile(live, true)
	if err != nil {
		return nil, err
	}
	defer func() {
		if !ok {
			ro.Close()
		}
	}()
	var rw *sql.DB
	// closeWriter closes the writable connection before the writer lock is released, so
	// the seal taken then covers whatever its close wrote.
	closeWriter := func() {
		if rw != nil {
			closeWriting(rw, live)
			rw = nil
		}
	}
	defer closeWriter()
	refreshWith := func(d *diff) error {
		if rw == nil {
			if rw, err = openFile(live, false); err != nil {
				rw = nil
				return err
			}
		}
		return refresh(ctx, rw, ix, b.Root, d)
	}
	damaged := func(err error) error {
		if isDamaged(err) && confirmDamage(ctx, ro, err) {
			return errNeedBuild
		}
		return fmt.Errorf("cannot read the search cache in .bf: %w", err)
	}

	// The shared reader lock keeps record writers out while files are compared.
	reader, err := acquire(ctx, dir, readerLockFile, false, 0)
	if errors.Is(err, errBusy) && fresh {
		return nil, &busyLock{readerLockFile}
	}
	if errors.Is(err, errBusy) {
		good, uerr := usable(ctx, ro, sig, ino)
		if uerr != nil {
			return nil, damaged(uerr)
		}
		if good {
			c.Status.Stale = true
			if err := c.finish(ctx, ro, b.Name, nil); err != nil {
				return nil, damaged(err)
			}
			ok = true
			return c, nil
		}
		reader, err = acquire(ctx, dir, readerLockFile, false, missingWait)
	}
	if err != nil {
		return nil, busyError(err, "another bf process holds the brain")
	}
	defer reader.release()

	// A running keeper (bf watch) that acknowledges a sync has compared every change made
	// before it: the brain need not be listed here (package keepsync). Its answer is awaited
	// while the generation is checked.
	pending := keepsync.Start(ctx, dir, sig)
	good, err := usable(ctx, ro, sig, ino)
	if err != nil || !good {
		pending.Stop()
		if err != nil {
			return nil, damaged(err)
		}
		return nil, errNeedBuild
	}
	if pending == nil {
		// A keeper that started meanwhile (bf watch starting beside this command) answers
		// as well: asking it is cheaper than listing the brain, and its own first comparison
		// would keep this Open from refreshing.
		pending = keepsync.Start(ctx, dir, sig)
	}
	if listed, fresh := pending.Wait(); fresh {
		if err := c.finish(ctx, ro, b.Name, listed); err != nil {
			return nil, damaged(err)
		}
		ok = true
		return c, nil
	}
	l, d, err := compare(ctx, ro, b.Root, clock())
	if err != nil {
		return nil, damaged(err)
	}
	if !d.empty() {
		writer, err := acquire(ctx, dir, WriterLockFile, true, 0)
		switch {
		case errors.Is(err, errBusy) && fresh:
			return nil, &busyLock{WriterLockFile}
		case errors.Is(err, errBusy):
			c.Status.Stale = true
		case err != nil:
			return nil, err
		default:
			keepsync.MarkRefresh(filepath.Join(dir, WriterLockFile))
			// A refresh that committed meanwhile is harmless to repeat: every changed path is
			// dropped before it is indexed again, and the next open compares anew.
			err = refreshWith(d)
			closeWriter()
			releaseWriter(dir, writer)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, damaged(err)
			}
		}
	} else if len(d.digests) > 0 {
		// Nothing changed, but an authored root's listing digest is new (the first open
		// after a change that a refresh could not describe exactly): store it so the next
		// open need not read that root's rows. It only saves work, so a busy writer or a
		// failure changes nothing in this answer.
		if writer, err := acquire(ctx, dir, WriterLockFile, true, 0); err == nil {
			keepsync.MarkRefresh(filepath.Join(dir, WriterLockFile))
			err = refreshWith(d)
			closeWriter()
			releaseWriter(dir, writer)
			if err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
	}
	if err := c.finish(ctx, ro, b.Name, l.problems); err != nil {
		return nil, damaged(err)
	}
	ok = true
	return c, nil
}

// finish collects the problems and keeps the read-only pool.
func (c *Cache) finish(ctx context.Context, ro *sql.DB, name string, listed []brain.Problem) error {
	probs, err := problems(ctx, ro, name, listed)
	if err != nil {
		return err
	}
	c.Status.Problems = probs
	c.db = ro
	return nil
}

// problems lists skipped files (the partial index on files.error keeps this cheap) and
// folders that could not be listed: up to maxProblems, then how many more were skipped.
func problems(ctx context.Context, db *sql.DB, name string, listed []brain.Problem) ([]brain.Problem, error) {
	var total int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM files WHERE error != ''`).Scan(&total); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT path, error FROM files WHERE error != '' ORDER BY path LIMIT ?`, maxProblems)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []brain.Problem
	for rows.Next() {
		var p brain.Problem
		if err := rows.Scan(&p.File, &p.Error); err != nil {
			return nil, err
		}
		p.File = scan.Printable(p.File)
		p.Brain = name
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, p := range listed {
		p.Brain = name
		p.Error = clipError(p.Error)
		out = append(out, p)
	}
	total += len(listed)
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	if len(out) > maxProblems {
		out = out[:maxProblems]
	}
	if total > len(out) {
		out = append(out, brain.Problem{Error: fmt.Sprintf("%d more files were skipped; run bf validate", total-len(out))})
	}
	return out, nil
}

// busyError explains a lock that stayed busy.
func busyError(err error, holder string) error {
	if errors.Is(err, errBusy) {
		return fmt.Errorf("%s; retry when it finishes", holder)
	}
	return err
}
