package cache

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"syscall"
	"time"

	"github.com/bfgo/bf/libbf/durable"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/store"
)

// BuildResult is what bf build reports.
type BuildResult struct {
	// Changed counts files that are new or whose fingerprint differs from the previous
	// generation (every file when there was none).
	Changed int `json:"changed"`
	// Files counts the inputs: notes, record files and the skipped files among them.
	Files int `json:"files"`
	// Removed counts files the previous generation held that are gone.
	Removed int `json:"removed"`
	// Skipped counts files recorded with an error instead of being indexed.
	Skipped int `json:"skipped"`
}

// Build recovers an interrupted record transaction, then writes a new generation beside the
// live one (.bf/index.sqlite.new) and renames it over the live file. Readers keep the
// previous generation until the rename; a build that is killed leaves the .new file, which
// the next build removes. progress, when set, is called as files are indexed.
func Build(ctx context.Context, b *brain.Brain, progress func(done, total int)) (BuildResult, error) {
	dir, err := prepareDir(b.Root)
	if err != nil {
		return BuildResult{}, err
	}
	return build(ctx, b, dir, progress, false, 0)
}

// build runs a full build under the writer lock. onlyIfNeeded (Open) skips it when a usable
// generation appeared while it waited for the lock, and never touches records; unusable is
// the inode of the generation Open found missing, incompatible or damaged (0: none), which
// is never taken for one that appeared, even when its files table still reads.
func build(ctx context.Context, b *brain.Brain, dir string, progress func(done, total int), onlyIfNeeded bool, unusable uint64) (BuildResult, error) {
	writer, err := acquire(ctx, dir, WriterLockFile, true, missingWait)
	if err != nil {
		return BuildResult{}, busyError(err, "another bf process is updating the search cache in .bf")
	}
	defer releaseWriter(dir, writer)
	// Readers hold the build lock only for the instant of their probe (yieldToBuild).
	building, err := acquire(ctx, dir, buildLockFile, true, missingWait)
	if err != nil {
		return BuildResult{}, busyError(err, "another bf process is updating the search cache in .bf")
	}
	defer building.release()
	sig := signature(b)
	live := filepath.Join(dir, IndexFile)
	if err := checkLive(live); err != nil {
		return BuildResult{}, err
	}
	previous, good := previousFiles(ctx, live, sig)
	if onlyIfNeeded && good {
		if st, err := os.Lstat(live); err == nil && inodeOf(st) != unusable {
			return BuildResult{}, nil
		}
	}
	if !onlyIfNeeded {
		if err := store.Recover(ctx, b.Root); err != nil {
			return BuildResult{}, err
		}
	}

	next := filepath.Join(dir, newIndexFile)
	for _, suffix := range []string{"", "-journal", "-wal", "-shm", tablesSuffix, tablesSuffix + "-journal"} {
		if err := os.Remove(next + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return BuildResult{}, dirError(err)
		}
	}
	f, err := os.OpenFile(next, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return BuildResult{}, dirError(err)
	}
	st, err := f.Stat()
	f.Close()
	if err != nil {
		return BuildResult{}, dirError(err)
	}
	ino := st.Sys().(*syscall.Stat_t).Ino
	res, err := fill(ctx, b, next, sig, ino, previous, progress)
	if err != nil {
		os.Remove(next)
		os.Remove(next + "-journal")
		if errors.Is(err, syscall.ENOSPC) {
			return res, dirError(err)
		}
		return res, err
	}
	if err := syncFile(next); err != nil {
		return res, dirError(err)
	}

	// Swap: no Cache may have the old file open, since its -wal and -shm names are about
	// to belong to the new generation.
	release, err := holdGeneration(ctx, dir)
	if err != nil {
		return res, busyError(err, "open searches kept the search cache in .bf busy")
	}
	defer release()
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := os.Remove(live + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, dirError(err)
		}
	}
	if err := os.Rename(next, live); err != nil {
		return res, dirError(err)
	}
	if err := durable.SyncDir(dir); err != nil {
		return res, dirError(err)
	}
	// The vector store outlives generations; this one bounds it to the brain's texts. A
	// generation holds chunks only while bf.yaml declares a provider: without one it says
	// nothing of which texts are used, and the store waits for the provider to come back.
	// The build is done whatever happens here: a store left as it was is pruned by the
	// next build or embedding pass.
	if b.Config != nil && b.Config.Embeddings != nil {
		keepUsedVectors(ctx, b.Root, live)
	}
	return res, nil
}

// previousFiles reads the fingerprints of the live generation, when it is one of this
// schema, and whether it is usable as is.
func previousFiles(ctx context.Context, live, sig string) (map[string]fingerprint, bool) {
	st, err := os.Lstat(live)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	db, err := openFile(live, true)
	if err != nil {
		return nil, false
	}
	defer db.Close()
	good, err := usable(ctx, db, sig, st.Sys().(*syscall.Stat_t).Ino)
	if err != nil {
		return nil, false
	}
	var version int
	if db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version) != nil || version != schemaVersion {
		return nil, good
	}
	out := map[string]fingerprint{}
	rows, err := db.QueryContext(ctx, `SELECT path, size, mtime, ctime, inode FROM files`)
	if err != nil {
		return nil, good
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var f fingerprint
		if rows.Scan(&p, &f.Size, &f.Mtime, &f.Ctime, &f.Inode) != nil {
			return nil, good
		}
		out[p] = f
	}
	if rows.Err() != nil {
		return nil, good
	}
	return out, good
}

// Two files are written at once, on two connections that SQLite runs in parallel: the
// search tables (search, bigrams, heavy) go straight into the new generation, fed by a
// goroutine, while every other table is written to a sidecar file beside it (it holds
// each file's savepoint) and copied into the generation at the end, row for row, before
// the secondary indexes are made. The search index, the largest cost of a build, then
// runs beside the parsing and the other tables instead of after them.
const tablesSuffix = "-tables"

// copiedTables are the tables the sidecar file holds, copied into the generation.
var copiedTables = []string{"files", "folders", "scopes", "items", "tasks", "passages", "names",
	"links", "tags", "edges", "reviews", "chunks"}

// Page sizes of the files a build writes. A command reads each page it needs once, with
// one system call, and a search reads many: a term's list, the sizes of its rows. With
// pages of 8 KiB instead of SQLite's 4 KiB, a search of a common word on the large bench
// brain made a quarter fewer reads, the 59 bench queries took 2.5 % less time, and the
// cache shrank by 2 %; 16 KiB spared a little more and raised a build's peak memory by
// 50 MiB. The sidecar's pages are never read by a search (its rows are copied into the
// generation), so it keeps SQLite's size and the build its memory.
const (
	generationPageSize = 8192
	sidecarPageSize    = 4096
)

// openBuildFile opens a file a build writes, with pages of pageSize bytes: new and private
// until it is renamed into place, so without journal syncs. Each file is written inside a
// savepoint, whose undo pages stay in memory (temp_store): on disk they cost a temporary
// file rewritten hundreds of thousands of times. The page cache stays small (8 MiB): a
// build appends, and each page the driver allocates and frees costs system calls (a 64 MiB
// cache cost a third of a build's CPU and 80 MiB of memory).
func openBuildFile(ctx context.Context, file string, pageSize int) (*sql.DB, error) {
	db, err := sql.Open("sqlite", dsn(file, "mode=rwc", fmt.Sprintf("_pragma=page_size(%d)", pageSize),
		"_pragma=journal_mode(DELETE)", "_pragma=synchronous(OFF)", "_pragma=cache_size(-8192)",
		"_pragma=temp_store(MEMORY)", "_txlock=immediate"))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, s := range ddl {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// searchSink writes the search rows a build's writer hands on through a spool, in its own
// transaction on the generation's connection.
type searchSink struct {
	spool *spool
	done  chan error
}

// startSearchSink starts writing the search rows put into the sink's spool, which lives in
// dir, into db.
func startSearchSink(ctx context.Context, db *sql.DB, dir string) (*searchSink, error) {
	sp, err := newSpool(dir)
	if err != nil {
		return nil, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		sp.release()
		return nil, err
	}
	w, err := newWriter(ctx, tx)
	if err != nil {
		tx.Rollback()
		sp.release()
		return nil, err
	}
	// The generation keeps no counts yet: buildHeads makes them from the complete table.
	w.docs = &termDocs{}
	s := &searchSink{spool: sp, done: make(chan error, 1)}
	go func() {
		defer w.close()
		// The statements run without a context that can be cancelled: for each statement, the
		// driver would start a goroutine watching it. The loop checks ctx between batches.
		quiet := context.WithoutCancel(ctx)
		var rows []ftsRow
		var err error
		for {
			if rows, err = sp.next(rows); err != nil {
				break
			}
			if err = ctx.Err(); err != nil {
				break
			}
			w.ftsAdd = rows
			if err = w.flushFTS(quiet); err != nil {
				break
			}
		}
		if err == io.EOF {
			err = tx.Commit()
		} else {
			sp.halt(err)
			tx.Rollback()
		}
		s.done <- err
	}()
	return s, nil
}

// wait returns once every row handed on is written and committed, or rolled back when
// the writer failed.
func (s *searchSink) wait(failed bool) error {
	s.spool.close(failed)
	err := <-s.done
	if rerr := s.spool.release(); err == nil {
		err = rerr
	}
	return err
}

// fill writes a complete generation into the new file.
func fill(ctx context.Context, b *brain.Brain, file, sig string, ino uint64, previous map[string]fingerprint, progress func(done, total int)) (BuildResult, error) {
	var res BuildResult
	db, err := openBuildFile(ctx, file, generationPageSize)
	if err != nil {
		return res, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `INSERT INTO meta(signature, file) VALUES(?, ?)`, sig, strconv.FormatUint(ino, 10)); err != nil {
		return res, err
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO chunk_state(generation, changes) VALUES(?, 0)`, rand.Text()); err != nil {
		return res, err
	}
	l, err := listBrain(b.Root, nil, time.Now())
	if err != nil {
		return res, err
	}
	// Digests use the listed order, which sortedInputs replaces.
	digests := map[string]string{}
	for _, s := range l.scopes {
		if isAuthoredScope(s) {
			digests[s] = digestOf(l.scopeInputs(s))
		}
	}
	inputs := l.sortedInputs()

	sidecar := file + tablesSuffix
	defer removeFiles(sidecar)
	if res, err = writeTables(ctx, b, db, sidecar, l, digests, inputs, previous, progress); err != nil {
		return res, err
	}
	// The search tables, most of the file, are committed: their pages go to disk while the
	// other tables are copied in.
	startWriteback(file)
	if _, err := db.ExecContext(ctx, `ATTACH ? AS t`, sidecar); err != nil {
		return res, err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return res, err
	}
	defer tx.Rollback()
	// The indexes are made on the empty tables first: the copy then moves each table
	// and each of its indexes from the sidecar, which made them, page by page in order.
	for _, s := range indexes {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return res, err
		}
	}
	for _, t := range copiedTables {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`INSERT INTO main.%s SELECT * FROM t.%s`, t, t)); err != nil {
			return res, err
		}
	}
	if err := keepNoteDays(ctx, tx); err != nil {
		return res, err
	}
	if err := buildHeads(ctx, tx); err != nil {
		return res, err
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	if _, err := db.ExecContext(ctx, `DETACH t`); err != nil {
		return res, err
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return res, err
	}
	if err := stampLayout(ctx, db); err != nil {
		return res, err
	}
	if _, err := db.ExecContext(ctx, "PRAGMA journal_mode = WAL"); err != nil {
		return res, err
	}
	return res, nil
}

// syncFile flushes a file to disk.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// checkLive refuses a folder left at .bf/index.sqlite, which no rename can replace (any
// other file there is replaced by the new generation).
func checkLive(live string) error {
	if st, err := os.Lstat(live); err == nil && st.IsDir() {
		return fmt.Errorf("%s/%s is a folder, not the search cache; remove it (rm -r %s/%s) so bf can rebuild the cache", Dir, IndexFile, Dir, IndexFile)
	}
	return nil
}

// writeTables writes every input into the sidecar file, handing the search rows to a sink
// writing them into db, and returns when both are committed, with the counts relative to
// the previous generation.
func writeTables(ctx context.Context, b *brain.Brain, db *sql.DB, sidecar string, l *listing, digests map[string]string, inputs []input, previous map[string]fingerprint, progress func(done, total int)) (BuildResult, error) {
	var res BuildResult
	removeFiles(sidecar)
	side, err := openBuildFile(ctx, sidecar, sidecarPageSize)
	if err != nil {
		return res, err
	}
	defer side.Close()
	sink, err := startSearchSink(ctx, db, filepath.Dir(sidecar))
	if err != nil {
		return res, err
	}
	kept := 0 // files of the previous generation still there
	count := func(path string, fp fingerprint, msg string) {
		res.Files++
		if msg != "" {
			res.Skipped++
		}
		old, ok := previous[path]
		if ok {
			kept++
		}
		if !ok || old != fp || fp == unknown {
			res.Changed++
		}
	}
	err = writeInputs(ctx, b, side, sink.spool, l, digests, inputs, count, progress)
	if err == nil {
		// The memory the parsing used goes back to the system first: the sort of the indexes
		// and the search index, side by side, are the peak of a build's memory.
		debug.FreeOSMemory()
		// The sidecar's indexes are made while the search index is still being written.
		for _, s := range indexes {
			if _, err = side.ExecContext(ctx, s); err != nil {
				break
			}
		}
	}
	if serr := sink.wait(err != nil); err == nil {
		err = serr
	}
	res.Removed = len(previous) - kept
	return res, err
}

// writeInputs writes the tables other than the search tables into db in one transaction;
// count is called with each files row.
func writeInputs(ctx context.Context, b *brain.Brain, db *sql.DB, sink *spool, l *listing, digests map[string]string, inputs []input, count func(path string, fp fingerprint, msg string), progress func(done, total int)) error {
	return writeTx(ctx, db, func(w *writer) error {
		w.sink = sink
		w.onFile = count
		if err := w.batch(ctx); err != nil {
			return err
		}
		var report func(int)
		if progress != nil {
			report = func(done int) { progress(done, len(inputs)) }
			progress(0, len(inputs))
		}
		if err := w.apply(ctx, newIndexer(b), b.Root, inputs, false, report); err != nil {
			return err
		}
		for f, fp := range l.folders {
			if err := w.setFolder(ctx, f, fp); err != nil {
				return err
			}
		}
		for s, dg := range digests {
			if err := w.setScope(ctx, s, dg); err != nil {
				return err
			}
		}
		return nil
	})
}

// removeFiles removes a database file and its journal.
func removeFiles(file string) {
	os.Remove(file)
	os.Remove(file + "-journal")
}
