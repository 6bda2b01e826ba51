package cache

import (
	"context"
	"database/sql"
	"sort"
	"strings"
	"time"
)

// diff is what an incremental refresh must do.
type diff struct {
	changed     []input // new files and files whose fingerprint changed, in path order
	removed     []string
	folders     map[string]folderPrint // source folders whose stored fingerprint changes
	dropFolders []string               // source folders that are gone
}

func (d *diff) empty() bool {
	return len(d.changed) == 0 && len(d.removed) == 0 && len(d.folders) == 0 && len(d.dropFolders) == 0
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

// storedFiles reads the fingerprints stored under one path prefix, through the primary key.
func storedFiles(ctx context.Context, db *sql.DB, prefix string, into map[string]fingerprint) error {
	rows, err := db.QueryContext(ctx, `SELECT path, size, mtime, ctime, inode FROM files WHERE path >= ? AND path < ?`,
		prefix, upper(prefix))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var p string
		var f fingerprint
		if err := rows.Scan(&p, &f.size, &f.mtime, &f.ctime, &f.inode); err != nil {
			return err
		}
		into[p] = f
	}
	return rows.Err()
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
	stored := map[string]fingerprint{}
	for _, s := range scopes {
		if err := storedFiles(ctx, db, s, stored); err != nil {
			return nil, nil, err
		}
	}
	for _, in := range l.sortedInputs() {
		if old, ok := stored[in.path]; !ok || old != in.fp || in.fp == unknown {
			d.changed = append(d.changed, in)
		}
	}
	for p := range stored {
		if _, ok := l.inputs[p]; !ok && inScopes(p, scopes) {
			d.removed = append(d.removed, p)
		}
	}
	sort.Strings(d.removed)
	return l, d, nil
}

func inScopes(p string, scopes []string) bool {
	for _, s := range scopes {
		if strings.HasPrefix(p, s) {
			return true
		}
	}
	return false
}

// refresh applies d to the live generation in one transaction, one savepoint per file.
func refresh(ctx context.Context, db *sql.DB, ix *indexer, root string, d *diff) error {
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
	for _, p := range d.removed {
		if err := w.drop(ctx, p); err != nil {
			return err
		}
	}
	if err := w.apply(ctx, ix, root, d.changed, true, nil); err != nil {
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
	}
	return tx.Commit()
}
