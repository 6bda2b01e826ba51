package cache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/record"
)

// writer inserts and removes rows inside one transaction.
type writer struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	// inexact are the inputs applied whose files row does not hold their listed
	// fingerprint (gone before they were read, or read with an error that asks for
	// another look): their scope's listing is not what the generation holds.
	inexact []string
	// FTS5 writes its pending terms to disk as a new index segment at every SAVEPOINT, so
	// search rows written inside each file's savepoint cost a segment per file, merged
	// again and again (most of a build, and of a refresh of 100 records). They wait here
	// instead: the rows to delete (old passage ids) and to insert (files whose savepoint
	// was released), written by flushFTS once per batch of files, deletes first.
	ftsDel []int64
	ftsAdd []ftsRow
	// pending are the search rows of the file being added, kept when it is released.
	pending []ftsRow
	// sink, when set, takes the search rows to add instead (a build writes them on another
	// connection); a writer with a sink never removes files.
	sink *spool
	// batches, when set (a build), collect the rows of the statements in batched; items
	// and passages then get their ids from lastItem and lastPassage, and refs tells the
	// refs that cannot be held yet.
	batches               map[string]*rowBatch
	lastItem, lastPassage int64
	refs                  refSet
	// onFile, when set, is called with each files row written.
	onFile func(path string, fp fingerprint, msg string)
	// docs keeps term_docs exact as search rows go and come (termdocs.go); nil until the
	// first flush that writes or removes search rows.
	docs *termDocs
}

// ftsRow is one search row, its values folded.
type ftsRow struct {
	id                          int64
	title, text, names, context string
}

var writeSQL = map[string]string{
	"item": `INSERT INTO items(ref, path, kind, source, title, time, type, status, lead, url, updated,
		observed, partial, tasks_open, tasks_done, next, weight, stale_after, fields)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"passage":   `INSERT INTO passages(item, fragment, title, original) VALUES(?, ?, ?, ?)`,
	"passageAt": `INSERT INTO passages(id, item, fragment, title, original) VALUES(?, ?, ?, ?, ?)`,
	"itemAt": `INSERT INTO items(id, ref, path, kind, source, title, time, type, status, lead, url, updated,
		observed, partial, tasks_open, tasks_done, next, weight, stale_after, fields)
		VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
	"search":     `INSERT INTO search(rowid, title, text, names, context) VALUES(?, ?, ?, ?, ?)`,
	"bigram":     `INSERT INTO bigrams(rowid, text) VALUES(?, ?)`,
	"dropBigram": `DELETE FROM bigrams WHERE rowid = ?`,
	"heavy":      `INSERT INTO heavy(passage, term, col, count) VALUES(?, ?, ?, ?)`,
	"dropHeavy":  `DELETE FROM heavy WHERE passage = ?`,
	"touch":      `INSERT OR IGNORE INTO touched(passage) VALUES(?)`,
	"task":       `INSERT OR IGNORE INTO tasks(item, line, fragment, text, done) VALUES(?, ?, ?, ?, ?)`,
	"name":       `INSERT OR IGNORE INTO names(name, item) VALUES(?, ?)`,
	"link":       `INSERT OR IGNORE INTO links(item, target) VALUES(?, ?)`,
	"tag":        `INSERT OR IGNORE INTO tags(item, target) VALUES(?, ?)`,
	"edge":       `INSERT INTO edges(item, subject, relation, target, origin) VALUES(?, ?, ?, ?, ?)`,
	"review":     `INSERT INTO reviews(item, state) VALUES(?, ?)`,
	"chunk":      `INSERT INTO chunks(item, fragment, hash, text) VALUES(?, ?, ?, ?)`,
	"file":       `INSERT OR REPLACE INTO files(path, size, mtime, ctime, inode, error) VALUES(?, ?, ?, ?, ?, ?)`,
	"folder":     `INSERT OR REPLACE INTO folders(path, mtime, ctime, inode, subfolder) VALUES(?, ?, ?, ?, ?)`,
	"dropDir":    `DELETE FROM folders WHERE path = ?`,
	"scope":      `INSERT OR REPLACE INTO scopes(scope, digest) VALUES(?, ?)`,
	"dropScope":  `DELETE FROM scopes WHERE scope = ?`,
	"passageIDs": `SELECT p.id FROM passages p JOIN items i ON p.item = i.id WHERE i.path = ?`,
	"dropFTS":    `DELETE FROM search WHERE rowid = ?`,
	"dropPass":   `DELETE FROM passages WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropTasks":  `DELETE FROM tasks WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropNames":  `DELETE FROM names WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropLinks":  `DELETE FROM links WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropTags":   `DELETE FROM tags WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropEdges":  `DELETE FROM edges WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropReview": `DELETE FROM reviews WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropChunks": `DELETE FROM chunks WHERE item IN (SELECT id FROM items WHERE path = ?)`,
	"dropItems":  `DELETE FROM items WHERE path = ?`,
	"dropFile":   `DELETE FROM files WHERE path = ?`,
	"savepoint":  `SAVEPOINT file`,
	"release":    `RELEASE file`,
	"rollbackTo": `ROLLBACK TO file`,

	// searchValues reads back a search row before it is removed, for term_docs.
	"searchValues": `SELECT title, text, names, context FROM search WHERE rowid = ?`,
	"moveDocs":     `UPDATE term_docs SET docs = docs + ? WHERE term = ?`,
}

// dropOrder removes an item's rows before the item itself (its search rows wait for
// flushFTS).
var dropOrder = []string{"dropPass", "dropTasks", "dropNames", "dropLinks", "dropTags", "dropEdges", "dropReview", "dropChunks", "dropItems", "dropFile"}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx, stmts: map[string]*sql.Stmt{}}
	for k, q := range writeSQL {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			w.close()
			return nil, err
		}
		w.stmts[k] = st
	}
	return w, nil
}

// writeTx runs fn with a writer in one transaction on db, and commits when fn succeeds.
func writeTx(ctx context.Context, db *sql.DB, fn func(*writer) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx)
	if err != nil {
		return err
	}
	defer w.close()
	if err := fn(w); err != nil {
		return err
	}
	return tx.Commit()
}

// batch makes the writer of a new file collect the rows of the batched statements.
func (w *writer) batch(ctx context.Context) error {
	bs, err := newRowBatches(ctx, w.tx, w.stmts)
	w.batches = bs
	return err
}

// put inserts one row with statement k, or queues it when k is batched.
func (w *writer) put(ctx context.Context, k string, args ...any) error {
	if b := w.batches[k]; b != nil {
		return b.add(ctx, args...)
	}
	_, err := w.exec(ctx, k, args...)
	return err
}

// flushBatches inserts the rows still queued.
func (w *writer) flushBatches(ctx context.Context) error {
	for _, k := range batched {
		if b := w.batches[k]; b != nil {
			if err := b.flush(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) close() {
	closeBatches(w.batches)
	for _, st := range w.stmts {
		st.Close()
	}
}

func (w *writer) exec(ctx context.Context, k string, args ...any) (sql.Result, error) {
	return w.stmts[k].ExecContext(ctx, args...)
}

// drop removes a path's item, its rows and its files row; its search rows are removed by
// the next flushFTS.
func (w *writer) drop(ctx context.Context, path string) error {
	rows, err := w.stmts["passageIDs"].QueryContext(ctx, path)
	ids, err := ReadRows(rows, err, ScanInt64)
	if err != nil {
		return err
	}
	w.ftsDel = append(w.ftsDel, ids...)
	for _, k := range dropOrder {
		if _, err := w.exec(ctx, k, path); err != nil {
			return err
		}
	}
	return nil
}

// add inserts one entry. Its passages follow its item, and new rows take ids above every
// id in their table, so passage ids rise with item ids: the passages of a run of items are
// a range of passage ids, which a scoped search reads as such (search/ranges.go).
func (w *writer) add(ctx context.Context, e *entry) error {
	id, err := w.addItem(ctx, &e.item)
	if err != nil {
		return err
	}
	for _, p := range e.passages {
		pid, err := w.addPassage(ctx, id, p)
		if err != nil {
			return err
		}
		w.pending = append(w.pending, ftsRow{pid, p.title, p.text, p.names, p.context})
	}
	for _, t := range e.tasks {
		if err := w.put(ctx, "task", id, t.line, t.fragment, t.text, t.done); err != nil {
			return err
		}
	}
	for _, n := range e.names {
		if err := w.put(ctx, "name", n, id); err != nil {
			return err
		}
	}
	for _, l := range e.links {
		if err := w.put(ctx, "link", id, l); err != nil {
			return err
		}
	}
	for _, t := range e.tags {
		if err := w.put(ctx, "tag", id, t); err != nil {
			return err
		}
	}
	if e.review != "" {
		if err := w.put(ctx, "review", id, e.review); err != nil {
			return err
		}
	}
	for _, c := range e.chunks {
		if err := w.put(ctx, "chunk", id, c.Fragment, c.Hash(), c.Text); err != nil {
			return err
		}
	}
	seen := map[edgeRow]bool{}
	for _, ed := range e.edges {
		if seen[ed] {
			continue
		}
		seen[ed] = true
		if err := w.put(ctx, "edge", id, ed.subject, ed.relation, ed.target, ed.origin); err != nil {
			return err
		}
	}
	return nil
}

// addItem inserts an item row and returns its id, or a fileError when another file holds
// its ref.
func (w *writer) addItem(ctx context.Context, it *itemRow) (int64, error) {
	args := []any{it.ref, it.path, it.kind, it.source, it.title, it.time, it.typ,
		it.status, it.lead, it.url, it.updated, it.observed, it.partial, it.tasksOpen, it.tasksDone,
		it.next, it.weight, it.staleAfter, it.fields}
	if w.batches == nil {
		res, err := w.exec(ctx, "item", args...)
		if err != nil {
			return 0, itemError(err, it.ref)
		}
		return res.LastInsertId()
	}
	id := w.lastItem + 1
	args = append([]any{id}, args...)
	if w.refs.add(it.ref) {
		if err := w.put(ctx, "itemAt", args...); err != nil {
			return 0, err
		}
	} else {
		// The ref may be held already: the rows queued go first, then SQLite checks it.
		if err := w.batches["itemAt"].flush(ctx); err != nil {
			return 0, err
		}
		if _, err := w.exec(ctx, "itemAt", args...); err != nil {
			return 0, itemError(err, it.ref)
		}
	}
	w.lastItem = id
	return id, nil
}

// itemError names the file holding the same ref when an item insert failed on it.
func itemError(err error, ref string) error {
	if strings.Contains(err.Error(), "UNIQUE") {
		return &fileError{"another file already holds the ref " + ref + "; run bf validate"}
	}
	return err
}

// addPassage inserts a passage row and returns its id.
func (w *writer) addPassage(ctx context.Context, item int64, p passageRow) (int64, error) {
	if w.batches != nil {
		w.lastPassage++
		return w.lastPassage, w.put(ctx, "passageAt", w.lastPassage, item, p.fragment, p.display, p.original)
	}
	res, err := w.exec(ctx, "passage", item, p.fragment, p.display, p.original)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// flushFTS writes the search rows waiting since the last flush: deletes first, since a
// new passage may reuse the id of a removed one.
func (w *writer) flushFTS(ctx context.Context) error {
	if w.sink != nil && len(w.ftsDel) == 0 {
		if len(w.ftsAdd) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := w.sink.put(w.ftsAdd); err != nil {
				return err
			}
			clear(w.ftsAdd) // drop the texts
			w.ftsAdd = w.ftsAdd[:0]
		}
		return nil
	}
	if len(w.ftsDel)+len(w.ftsAdd) == 0 {
		return nil
	}
	if w.docs == nil {
		var err error
		if w.docs, err = loadTermDocs(ctx, w.tx); err != nil {
			return err
		}
	}
	counting := w.docs.active()
	for _, id := range w.ftsDel {
		if counting {
			if err := w.uncount(ctx, id); err != nil {
				return err
			}
		}
		if _, err := w.exec(ctx, "dropFTS", id); err != nil {
			return err
		}
		if _, err := w.exec(ctx, "dropBigram", id); err != nil {
			return err
		}
		if _, err := w.exec(ctx, "dropHeavy", id); err != nil {
			return err
		}
		if _, err := w.exec(ctx, "touch", id); err != nil {
			return err
		}
	}
	w.ftsDel = w.ftsDel[:0]
	for _, r := range w.ftsAdd {
		if _, err := w.exec(ctx, "search", r.id, r.title, r.text, r.names, r.context); err != nil {
			return err
		}
		// The heads built with the generation no longer tell this passage (heads.go).
		if _, err := w.exec(ctx, "touch", r.id); err != nil {
			return err
		}
		if bi := fold.Bigrams(r.title + " " + r.text); bi != "" {
			if _, err := w.exec(ctx, "bigram", r.id, bi); err != nil {
				return err
			}
		}
		for _, c := range heavyCounts(&r) {
			if _, err := w.exec(ctx, "heavy", r.id, c.Term, c.Column, c.Count); err != nil {
				return err
			}
		}
		if counting {
			w.docs.count([4]string{r.title, r.text, r.names, r.context}, 1)
		}
	}
	clear(w.ftsAdd) // drop the texts
	w.ftsAdd = w.ftsAdd[:0]
	if counting {
		return w.docs.write(ctx, w.stmts["moveDocs"])
	}
	return nil
}

func (w *writer) setFile(ctx context.Context, path string, fp fingerprint, msg string) error {
	if w.onFile != nil {
		w.onFile(path, fp, msg)
	}
	return w.put(ctx, "file", path, fp.Size, fp.Mtime, fp.Ctime, fp.Inode, clipError(msg))
}

// setScope stores the digest of an authored root's listing, or removes it: when digest is
// empty or an input of the root was applied inexactly.
func (w *writer) setScope(ctx context.Context, scope, digest string) error {
	for _, p := range w.inexact {
		if strings.HasPrefix(p, scope) {
			digest = ""
		}
	}
	if digest == "" {
		_, err := w.exec(ctx, "dropScope", scope)
		return err
	}
	_, err := w.exec(ctx, "scope", scope, digest)
	return err
}

func (w *writer) setFolder(ctx context.Context, path string, f folderPrint) error {
	_, err := w.exec(ctx, "folder", path, f.mtime, f.ctime, f.inode, f.subfolder)
	return err
}

// prepared is one input read and parsed, ready to insert.
type prepared struct {
	in       input
	e        *entry
	err      string // the reason it is skipped
	vanished bool   // gone before it could be read: no files row, so it is compared again
}

// prepare reads and parses one input. It never touches the database.
func prepare(ix *indexer, root string, in input) prepared {
	p := prepared{in: in}
	if in.err != "" {
		p.err = in.err
		return p
	}
	source, isRecord := recordSource(in.path)
	limit := int64(note.MaxBytes)
	if isRecord {
		limit = record.MaxFileSize
	}
	if in.fp.Size > limit {
		if isRecord {
			p.err = "record file exceeds 16 MiB"
		} else {
			p.err = "note exceeds 4 MiB"
		}
		return p
	}
	data, err := durable.ReadRegular(filepath.Join(root, filepath.FromSlash(in.path)), limit)
	var tooLarge *durable.TooLargeError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.vanished = true
		return p
	case errors.Is(err, fs.ErrPermission):
		p.err = "inaccessible file or folder; check permissions"
		return p
	case errors.Is(err, durable.ErrSymlink):
		p.err = msgSymlinkFile
		return p
	case errors.As(err, &tooLarge):
		p.err = "file grew past its size limit while it was read"
		p.in.fp = unknown
		return p
	case errors.Is(err, durable.ErrNotRegular):
		p.err = "cannot read file: not a regular file"
		p.in.fp = unknown
		return p
	case err != nil:
		p.err = "cannot read file: " + durable.Cause(err).Error()
		p.in.fp = unknown // transient: compared again next time
		return p
	}
	if isRecord {
		p.e, err = ix.record(source, in.path, data)
	} else {
		p.e, err = ix.note(in.path, data)
	}
	if err != nil {
		p.err = err.Error()
	} else {
		p.e.foldPassages()
	}
	return p
}

// recordSource returns SOURCE for memories/SOURCE/FILE.
func recordSource(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, "memories/")
	if !ok {
		return "", false
	}
	source, _, ok := strings.Cut(rest, "/")
	return source, ok
}

// batchSize is how many files are parsed in parallel before they are inserted in order.
const batchSize = 256

// apply indexes inputs: files are read and parsed in parallel, a batch ahead of the
// inserts, then inserted one savepoint each, in path order. A file that fails is recorded
// in files.error and skipped. progress, when set, is called after each file with the count
// done so far.
func (w *writer) apply(ctx context.Context, ix *indexer, root string, inputs []input, replace bool, progress func(done int)) error {
	ix.forgetLedgers() // a long-lived indexer (the keeper's) reads each pass's ledgers anew
	type parsed struct {
		start int
		out   []prepared
	}
	// The next batch is read and parsed while this one is inserted: on two cores the
	// parsing then costs the build almost no time.
	ready := make(chan parsed)
	stop := make(chan struct{})
	go func() {
		defer close(ready)
		for start := 0; start < len(inputs); start += batchSize {
			if ctx.Err() != nil {
				return
			}
			batch := inputs[start:min(start+batchSize, len(inputs))]
			out := make([]prepared, len(batch))
			parseBatch(ix, root, batch, out)
			select {
			case ready <- parsed{start, out}:
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range ready {
		}
	}()
	for b := range ready {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range b.out {
			in := inputs[b.start+i]
			if b.out[i].vanished || b.out[i].in.fp != in.fp {
				w.inexact = append(w.inexact, in.path)
			}
			if err := w.insert(ctx, b.out[i], replace); err != nil {
				return err
			}
			b.out[i] = prepared{}
			if progress != nil {
				progress(b.start + i + 1)
			}
		}
		if err := w.flushFTS(ctx); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return w.flushBatches(ctx)
}

// parseBatch reads and parses batch into out on a few goroutines, each taking the next
// file until none is left.
func parseBatch(ix *indexer, root string, batch []input, out []prepared) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range max(1, min(runtime.GOMAXPROCS(0), 8)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(batch); i = int(next.Add(1) - 1) {
				out[i] = prepare(ix, root, batch[i])
			}
		})
	}
	wg.Wait()
}

// insert stores one prepared input: inside its own savepoint, or with its rows queued when
// the writer batches.
func (w *writer) insert(ctx context.Context, p prepared, replace bool) error {
	if replace {
		if err := w.drop(ctx, p.in.path); err != nil {
			return err
		}
	}
	if p.vanished {
		return nil
	}
	msg := p.err
	if p.e != nil && w.batches != nil {
		// Only the item's row can fail, before any other row of the file is queued.
		w.pending = w.pending[:0]
		var fe *fileError
		switch err := w.add(ctx, p.e); {
		case err == nil:
			w.ftsAdd = append(w.ftsAdd, w.pending...)
		case errors.As(err, &fe):
			msg = err.Error()
		default:
			return err
		}
	} else if p.e != nil {
		if _, err := w.exec(ctx, "savepoint"); err != nil {
			return err
		}
		w.pending = w.pending[:0]
		added := w.add(ctx, p.e)
		if err := added; err != nil {
			if _, rerr := w.exec(ctx, "rollbackTo"); rerr != nil {
				return rerr
			}
			var fe *fileError
			if !errors.As(err, &fe) {
				if isDamaged(err) || ctx.Err() != nil {
					w.exec(ctx, "release")
					return err
				}
				err = fmt.Errorf("cannot index file: %v", err)
			}
			msg = err.Error()
		}
		if _, err := w.exec(ctx, "release"); err != nil {
			return err
		}
		if added == nil {
			w.ftsAdd = append(w.ftsAdd, w.pending...)
		}
	}
	return w.setFile(ctx, p.in.path, p.in.fp, msg)
}
