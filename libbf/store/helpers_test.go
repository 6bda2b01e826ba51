package store

import (
	"fmt"
	"github.com/bfgo/bf/libbf/provenance"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/record"
)

// Instants the tests use, in stored form.
const (
	t1  = "2026-09-01T10:00:00.000000Z"
	t2  = "2026-09-02T10:00:00.000000Z"
	t3  = "2026-09-03T10:00:00.000000Z"
	obs = "2026-10-02T08:15:03.412000Z" // Options.Observed of every test commit
)

var observedAt = time.Date(2026, 10, 2, 8, 15, 3, 412_000_000, time.UTC)

const hex32 = "0123456789abcdef0123456789abcdef"

// rec builds a record; attrs are key, value pairs.
func rec(id, title string, attrs ...string) record.Record {
	r := record.Record{ID: id, Title: title}
	if len(attrs) > 0 {
		r.Attributes = map[string]any{}
		for i := 0; i+1 < len(attrs); i += 2 {
			r.Attributes[attrs[i]] = attrs[i+1]
		}
	}
	return r
}

// stored is the canonical file content of a record.
func stored(id, title string, attrs ...string) string {
	b, err := rec(id, title, attrs...).Canonical()
	if err != nil {
		panic(err)
	}
	return string(b)
}

// fn is the file name of a record id.
func fn(id string) string { return record.FileName(id) }

// writeTree creates files under root. A content starting with "->" makes a symbolic link
// to the rest; a path ending in "/" makes a folder.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(p, "/"):
			err = os.MkdirAll(full, 0o755)
		case strings.HasPrefix(s, "->"):
			err = os.Symlink(s[2:], full)
		default:
			err = os.WriteFile(full, []byte(s), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// tree lists everything under dir: files with their content, folders as "/", symbolic links
// as "->target". nil when dir does not exist.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return nil
	}
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "->" + target
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// inodes maps every path under dir to its inode and modification time, to prove that
// nothing was rewritten.
func inodes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%d %d", st.Sys().(*syscall.Stat_t).Ino, st.ModTime().UnixNano())
		return nil
	})
	return out
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// splitLedger takes the ledger of the folder prefix (provenance.LedgerName under it) out of
// a tree, checks that it names only files the tree holds, and returns it.
func splitLedger(t *testing.T, files map[string]string, prefix string) provenance.Ledger {
	t.Helper()
	text, ok := files[prefix+provenance.LedgerName]
	delete(files, prefix+provenance.LedgerName)
	l := provenance.ParseLedger([]byte(text))
	if ok && len(l) == 0 {
		t.Errorf("%s%s names no file: %q", prefix, provenance.LedgerName, text)
	}
	for name := range l {
		if _, held := files[prefix+name]; !held {
			t.Errorf("%s%s names %s, which the folder does not hold", prefix, provenance.LedgerName, name)
		}
	}
	return l
}

// checkConfirmed fails unless the ledger confirms exactly the files of after that differ
// from before (the files a commit wrote), among those that were never confirmed before.
func checkConfirmed(t *testing.T, l provenance.Ledger, before, after map[string]string) {
	t.Helper()
	for name, data := range after {
		wrote := before[name] != data
		if _, existed := before[name]; !existed {
			wrote = true
		}
		if got := l.Confirms(name, []byte(data)); got != wrote {
			t.Errorf("the ledger confirms %s: %v, want %v (written by the commit: %v)", name, got, wrote, wrote)
		}
	}
}
