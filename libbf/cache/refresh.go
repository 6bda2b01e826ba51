package cache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"sort"
	"time"

	"github.com/bfgo/bf/libbf/ref"
)

// diff is what an incremental refresh must do.
type diff struct {
	changed     []input // new files and files whose fingerprint changed, in path order
	removed     []string
	folders     map[string]folderPrint // source folders whose stored fingerprint changes
	dropFolders []string               // source folders that are gone
	// digests are the listing digests to store for the authored roots compared file by
	// file ("" removes one); seen are the stored digests compare read, which the refresh
	// checks are still in place.
	digests map[string]string
	seen    map[string]string
}

func (d *diff) empty() bool {
	return len(d.changed) == 0 && len(d.removed) == 0 && len(d.folders) == 0 && len(d.dropFolders) == 0
}

// touchesNotes reports whether the refresh adds, changes or removes a file under the
// authored roots, the only files that can change the days notes are dated: a refresh of
// records alone, what a watcher does most, keeps note_days as it is.
func (d *diff) touchesNotes() bool {
	for _, in := range d.changed {
		if ref.UnderAuthored(in.path) {
			return true
		}
	}
	return slices.ContainsFunc(d.removed, ref.UnderAuthored)
}

// upper is the smallest string above every string starting with prefix ("a/" → "a0").
func upper(prefix string) string {
	return prefix[:len(prefix)-1] + string(rune(prefix[len(prefix)-1]+1))
}

// storedFolders reads the stored source folder fingerprints.
func storedFolders(ctx context.Context, db *sql.DB) (map[string]folderPrint, error) {
	rows, err := db.QueryContext(ctx, `SELECT path, mtime, ctime, inode, subfolder FROM folders`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]folderPrint{}
	for rows.Next() {
		var p string
		var f folderPrint
		if err := rows.Scan(&p, &f.mtime, &f.ctime, &f.inode, &f.subfolder); err != nil {
			return nil, err
		}
		out[p] = f
	}
	return out, rows.Err()
}

// onReadScope is called with each scope whose stored files compare reads (tests count them).
var onReadScope func(scope string)

// storedScopes reads the stored listing digests of the authored roots.
func storedScopes(ctx context.Context, db Querier) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT scope, digest FROM scopes`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var s, dg string
		if err := rows.Scan(&s, &dg); err != nil {
			return nil, err
		}
		out[s] = dg
	}
	return out, rows.Err()
}

// Querier is what reads a cache: a *sql.DB, *sql.Conn or, better, a read-only *sql.Tx so
// that every question of one command sees one snapshot.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Strings runs a query of one text column and returns its values in the query's order.
func Strings(ctx context.Context, q Querier, query string, args ...any) ([]string, error) {
	return Collect(ctx, q, query, args, func(rows *sql.Rows) (string, error) {
		var s string
		err := rows.Scan(&s)
		return s, err
	})
}

// Collect runs query and returns its rows in the query's order, each read by scan (nil
// when there are none). The first failure of the query, of a scan or of the rows ends it.
func Collect[T any](ctx context.Context, q Querier, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	return ReadRows(rows, err, scan)
}

// ReadRows reads and closes the rows of a query that has run (err is the query's own),
// as Collect does; for prepared statements.
func ReadRows[T any](rows *sql.Rows, err error, scan func(*sql.Rows) (T, error)) ([]T, error) {
	var out []T
	err = EachRow(rows, err, func(rows *sql.Rows) error {
		v, err := scan(rows)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// EachRow calls f for each row of a query that has run (err is the query's own) and closes
// the rows; the first failure ends it.
func EachRow(rows *sql.Rows, err error, f func(*sql.Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := f(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ScanInt64 reads a row of one integer column, for Collect and ReadRows.
func ScanInt64(rows *sql.Rows) (v int64, err error) {
	return v, rows.Scan(&v)
}

// isAuthoredScope reports an authored root's scope.
func isAuthoredScope(s string) bool { return slices.Contains(authoredScopes, s) }

// within returns the inputs under scope, from inputs in path order.
func within(inputs []input, scope string) []input {
	lo := sort.Search(len(inputs), func(i int) bool { return inputs[i].path >= scope })
	hi := sort.Search(len(inputs), func(i int) bool { return inputs[i].path >= upper(scope) })
	return inputs[lo:hi]
}

// digestOf is the SHA-256 hex of a listing's paths and fingerprints in listed order, or ""
// when an input has no fingerprint (it is compared again every time).
func digestOf(inputs []input) string {
	h := sha256.New()
	buf := make([]byte, 0, 64<<10)
	for _, in := range inputs {
		if in.fp == unknown {
			return ""
		}
		buf = append(buf, in.path...)
		buf = append(buf, 0)
		for _, v := range []int64{in.fp.Size, in.fp.Mtime, in.fp.Ctime, in.fp.Inode} {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(v))
		}
		if len(buf) > 60<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// storedFile is one files row's fingerprint.
type storedFile struct {
	path string
	fp   fingerprint
}

// storedFiles appends the fingerprints stored under one path prefix, in path order, through
// the primary key.
func storedFiles(ctx context.Context, db *sql.DB, prefix string, into []storedFile) ([]storedFile, error) {
	rows, err := db.QueryContext(ctx, `SELECT path, size, mtime, ctime, inode FROM files WHERE path >= ? AND path < ?
		ORDER BY path`, prefix, upper(prefix))
	if err != nil {
		return into, err
	}
	defer rows.Close()
	for rows.Next() {
		var f storedFile
		if err := rows.Scan(&f.path, &f.fp.Size, &f.fp.Mtime, &f.fp.Ctime, &f.fp.Inode); err != nil {
			return into, err
		}
		into = append(into, f)
	}
	return into, rows.Err()
}

// compare lists the brain and compares it with the generation in db.
func compare(ctx context.Context, db *sql.DB, root string, now time.Time) (*listing, *diff, error) {
	folders, err := storedFolders(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	l, err := listBrain(root, func(f string) (folderPrint, bool) { fp, ok := folders[f]; return fp, ok }, now)
	if err != nil {
		return nil, nil, err
	}
	d := &diff{folders: map[string]folderPrint{}}
	scopes := append([]string{}, l.scopes...)
	if l.sourcesKnown {
		for f := range folders {
			if _, listed := l.folders[f]; !listed && !l.kept[f] {
				d.dropFolders = append(d.dropFolders, f)
				scopes = append(scopes, f+"/")
			}
		}
		sort.Strings(d.dropFolders)
	}
	for f, fp := range l.folders {
		if old, ok := folders[f]; !ok || old != fp {
			d.folders[f] = fp
		}
	}
	// The scopes are distinct folder prefixes, none inside another, so in order they hold
	// the stored files and the inputs in path order (every input lies in a scope). Each
	// scope's two sorted lists are merged, which costs less than maps of every file.
	//
	// An authored root whose listing has the digest stored for it holds exactly that
	// listing: its thousands of rows need not be read. The digest is stored only when the
	// generation's rows are known to be that listing (see writer.setScope), and changes or
	// goes whenever they change.
	seen, err := storedScopes(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	d.seen, d.digests = seen, map[string]string{}
	sort.Strings(scopes)
	scopes = slices.Compact(scopes)
	var stored []storedFile
	for _, s := range scopes {
		in := l.scopeInputs(s)
		if isAuthoredScope(s) {
			dg := digestOf(in)
			if dg != "" && dg == seen[s] {
				continue
			}
			if dg != seen[s] {
				d.digests[s] = dg
			}
		}
		if onReadScope != nil {
			onReadScope(s)
		}
		if stored, err = storedFiles(ctx, db, s, slices.Grow(stored[:0], len(in)+64)); err != nil {
			return nil, nil, err
		}
		sortInputs(in) // after its digest, which uses the listed order
		i, j := 0, 0
		for i < len(in) || j < len(stored) {
			switch {
			case j == len(stored) || i < len(in) && in[i].path < stored[j].path:
				d.changed = append(d.changed, in[i]) // new
				i++
			case i == len(in) || stored[j].path < in[i].path:
				d.removed = append(d.removed, stored[j].path)
				j++
			default:
				if in[i].fp != stored[j].fp || in[i].fp == unknown {
					d.changed = append(d.changed, in[i])
				}
				i++
				j++
			}
		}
	}
	return l, d, nil
}

// refresh applies d to the live generation in one transaction, one savepoint per file.
func refresh(ctx context.Context, db *sql.DB, ix *indexer, root string, d *diff) error {
	return writeTx(ctx, db, func(w *writer) error {
		for _, p := range d.removed {
			if err := w.drop(ctx, p); err != nil {
				return err
			}
		}
		var report func(done int)
		if p := progressOf(ctx); p != nil {
			report = func(done int) { p(done, len(d.changed)) }
			p(0, len(d.changed))
		}
		if err := w.apply(ctx, ix, root, d.changed, true, report); err != nil {
			return err
		}
		if len(d.removed)+len(d.changed) > 0 {
			// Items changed, and with them perhaps their chunks: a copy of the chunks made
			// before is out of date.
			if _, err := w.tx.ExecContext(ctx, `UPDATE chunk_state SET changes = changes + 1`); err != nil {
				return err
			}
		}
		if err := w.flushFTS(ctx); err != nil { // the removed files' rows, when nothing changed
			return err
		}
		for _, f := range d.dropFolders {
			if _, err := w.exec(ctx, "dropDir", f); err != nil {
				return err
			}
		}
		for f, fp := range d.folders {
			if err := w.setFolder(ctx, f, fp); err != nil {
				return err
			}
			if err := w.recheckUnconfirmed(ctx, ix, root, f); err != nil {
				return err
			}
		}
		if len(d.digests) > 0 {
			// A digest another writer changed since compare read it may describe rows this
			// refresh did not see: remove it, and the next open compares file by file.
			now, err := storedScopes(ctx, w.tx)
			if err != nil {
				return err
			}
			for s, dg := range d.digests {
				if now[s] != d.seen[s] {
					dg = ""
				}
				if err := w.setScope(ctx, s, dg); err != nil {
					return err
				}
			}
		}
		if !d.touchesNotes() {
			return nil
		}
		return keepNoteDays(ctx, w.tx)
	})
}
