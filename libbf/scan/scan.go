// Package scan lists the files of a brain that bf reads: Markdown under the authored roots
// and record files under memories/. It reads directories, never file contents, so the cache
// can compare what it finds with what it indexed, and validation can report what is misplaced.
package scan

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MsgSymlinkFolder is the problem of an authored root or memories/ that is a symbolic link:
// bf reads only what is inside the brain.
const MsgSymlinkFolder = "symbolic links are not followed; move the folder into the brain"

// MsgTooDeep is the problem of a folder nested past MaxDepth levels: it is skipped, with
// everything below it.
const MsgTooDeep = "folders nest deeper than 64 levels; flatten them"

// MsgInvalidName is the problem of a note or folder whose name is not valid UTF-8: no
// address can name it, so it is skipped (a folder with everything below it).
const MsgInvalidName = "file names must be valid UTF-8; rename it"

// Printable writes a brain path for a report: each byte that is not valid UTF-8 becomes
// \xNN, so the path still shows which file is meant after it is encoded as JSON.
func Printable(p string) string {
	if utf8.ValidString(p) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02x`, p[i])
		} else {
			b.WriteString(p[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Authored are the folders of notes, in the order bf lists them.
var Authored = []string{"projects", "actions", "concepts"}

// Bounds on a brain's tree, so a runaway folder fails clearly instead of slowly.
const (
	MaxEntries  = 100000 // per authored folder or per record source
	warnEntries = 80000
	MaxDepth    = 64
)

// File is one file found by the scan.
type File struct {
	Path    string // brain-relative, with slashes
	Size    int64
	ModTime time.Time
}

// Source is one folder of records, memories/NAME/.
type Source struct {
	Name    string
	ModTime time.Time // the folder's own time: it changes when a record is added or removed
	Records []File    // files named <sha256>.json, sorted by path
}

// Problem is a file or folder the scan skipped, with the reason.
type Problem struct {
	Path  string `json:"file"`
	Error string `json:"error"`
}

// Tree is what a scan found.
type Tree struct {
	Notes    []File   // every .md under an authored root, sorted by path
	Folders  []string // every folder under an authored root, sorted
	Sources  []Source // sorted by name
	Stray    []File   // visible files under memories/ that are not records
	Leftover []File   // temporary files an interrupted record write left in a source folder
	Problems []Problem
}

var (
	recordName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}\.json$`) })
	sourceName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`) })
)

// isRecordName reports whether name has the shape of a record file.
func isRecordName(name string) bool { return recordName().MatchString(name) }

// Brain scans the brain at root.
func Brain(root string) (*Tree, error) {
	t := &Tree{}
	for _, top := range Authored {
		if err := t.authored(root, top); err != nil {
			return nil, err
		}
	}
	if err := t.memories(root); err != nil {
		return nil, err
	}
	sort.Slice(t.Notes, func(i, j int) bool { return t.Notes[i].Path < t.Notes[j].Path })
	sort.Strings(t.Folders)
	return t, nil
}

// hidden names are tool folders (.git, .obsidian) and editor files; they are never notes.
func hidden(name string) bool { return strings.HasPrefix(name, ".") }

func (t *Tree) authored(root, top string) error {
	if st, err := os.Lstat(filepath.Join(root, top)); err == nil && !st.IsDir() {
		msg := "not a folder; notes belong in " + top + "/"
		if st.Mode()&fs.ModeSymlink != 0 {
			msg = MsgSymlinkFolder
		}
		t.Problems = append(t.Problems, Problem{top, msg})
		return nil
	}
	entries := 0
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		list, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && rel == top {
				return nil
			}
			t.Problems = append(t.Problems, Problem{rel, "cannot read folder: " + reason(err)})
			return nil
		}
		entries += len(list)
		if entries > MaxEntries {
			return fmt.Errorf("%s: more than %d entries; split the folder", top, MaxEntries)
		}
		for _, e := range list {
			name := e.Name()
			if hidden(name) {
				continue
			}
			p := path.Join(rel, name)
			switch {
			case !utf8.ValidString(name):
				if e.IsDir() || strings.HasSuffix(name, ".md") {
					t.Problems = append(t.Problems, Problem{Printable(p), MsgInvalidName})
				}
			case e.Type()&fs.ModeSymlink != 0:
				if strings.HasSuffix(name, ".md") || isDir(root, p) {
					t.Problems = append(t.Problems, Problem{p, "symbolic links are not followed; move the file into the brain"})
				}
			case e.IsDir() && depth >= MaxDepth:
				t.Problems = append(t.Problems, Problem{p, MsgTooDeep})
			case e.IsDir():
				t.Folders = append(t.Folders, p)
				if err := walk(p, depth+1); err != nil {
					return err
				}
			case e.Type().IsRegular() && strings.HasSuffix(name, ".md"):
				info, err := e.Info()
				if err != nil {
					continue // vanished since the listing
				}
				t.Notes = append(t.Notes, File{Path: p, Size: info.Size(), ModTime: info.ModTime()})
			}
		}
		return nil
	}
	return walk(top, 1)
}

func isDir(root, rel string) bool {
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && st.IsDir()
}

func (t *Tree) memories(root string) error {
	if st, err := os.Lstat(filepath.Join(root, "memories")); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		t.Problems = append(t.Problems, Problem{"memories", MsgSymlinkFolder})
		return nil
	}
	list, err := os.ReadDir(filepath.Join(root, "memories"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Problems = append(t.Problems, Problem{"memories", "cannot read folder: " + reason(err)})
		return nil
	}
	for _, e := range list {
		name := e.Name()
		p := "memories/" + name
		if hidden(name) {
			continue // .pending is the write journal, never records
		}
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			t.Stray = append(t.Stray, File{Path: p})
			continue
		}
		if !sourceName().MatchString(name) {
			t.Problems = append(t.Problems, Problem{p, "record source folders must be named like sensors: lowercase letters, digits and hyphens"})
			continue
		}
		src, err := t.source(root, name)
		if err != nil {
			return err
		}
		t.Sources = append(t.Sources, src)
	}
	return nil
}

func (t *Tree) source(root, name string) (Source, error) {
	dir := filepath.Join(root, "memories", name)
	src := Source{Name: name}
	if st, err := os.Stat(dir); err == nil {
		src.ModTime = st.ModTime()
	}
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Problems = append(t.Problems, Problem{"memories/" + name, "cannot read folder: " + reason(err)})
		return src, nil
	}
	if len(list) > MaxEntries {
		return src, fmt.Errorf("memories/%s: more than %d entries; split the source", name, MaxEntries)
	}
	for _, e := range list {
		fname := e.Name()
		p := "memories/" + name + "/" + fname
		if strings.HasPrefix(fname, ".write-") {
			t.Leftover = append(t.Leftover, File{Path: p})
			continue
		}
		if hidden(fname) {
			continue
		}
		if !e.Type().IsRegular() || !isRecordName(fname) {
			t.Stray = append(t.Stray, File{Path: p})
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		src.Records = append(src.Records, File{Path: p, Size: info.Size(), ModTime: info.ModTime()})
	}
	return src, nil
}

// reason keeps an OS error's cause without the absolute path it carries.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
