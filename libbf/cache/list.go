package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/internal/fastlist"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/scan"
)

// The scan package lists every record file of every source; a warm open must not, so the
// cache lists the brain itself: authored folders on every open (with one lstat per note for
// its fingerprint, and no read of an unchanged file), memories/ on every open, and a source
// folder only when its own fingerprint changed since the last refresh, changed within
// settleTime, or holds a subfolder.

// settleTime is how long after its last change a source folder is listed again on every
// open: a write within the same clock tick can leave a folder's mtime unchanged.
const settleTime = 5 * time.Second

// fingerprint identifies a file's content without reading it (package fastlist).
type fingerprint = fastlist.Fingerprint

// unknown marks a file whose fingerprint could not be taken: it never matches, so the file
// is compared again next time.
var unknown = fastlist.Unknown

// folderPrint is a source folder's own fingerprint.
type folderPrint struct {
	mtime, ctime, inode int64
	subfolder           bool
}

// input is one file the cache must account for. A non-empty err skips it without reading.
type input struct {
	path string
	fp   fingerprint
	err  string
}

// listing is what one pass over the brain found.
type listing struct {
	// scopes are path prefixes ("projects/", "memories/mail/") whose stored files are all
	// replaced by inputs: a stored path under a scope that is not an input was removed.
	scopes []string
	// inputs are unique by path, each scope's in the order listed (spans) until
	// sortedInputs sorts them all in place.
	inputs []input
	spans  map[string][2]int
	sorted bool
	// folders are the source folders listed this time, with their new fingerprints.
	folders map[string]folderPrint
	// kept are source folders that were not listed: their stored files stand.
	kept map[string]bool
	// sourcesKnown is true when memories/ itself could be listed: a stored source folder
	// that is then neither in folders nor in kept was removed.
	sourcesKnown bool
	// problems are folders that could not be listed, reported on every open.
	problems []brain.Problem
}

// onListSource is called with each source folder the listing reads (tests count them).
var onListSource func(folder string)

// onReadAuthored, when set, can fail the read of an authored folder (tests run as root,
// whom permissions do not stop).
var onReadAuthored func(rel string) error

// authoredScopes are the authored roots, always listed.
var authoredScopes = []string{"projects/", "actions/", "concepts/"}

// listBrain lists the inputs of the brain at root. prev returns the stored fingerprint of a
// source folder; nil lists every source.
func listBrain(root string, prev func(folder string) (folderPrint, bool), now time.Time) (*listing, error) {
	l := &listing{folders: map[string]folderPrint{}, kept: map[string]bool{}, spans: map[string][2]int{}}
	// The authored folders are read ahead in parallel (package fastlist); the walk below
	// then applies the listing rules in order over what was read.
	pf := fastlist.ReadAhead(root, scan.Authored, noteCandidate)
	l.inputs = make([]input, 0, pf.Files)
	for _, top := range scan.Authored {
		if err := l.authored(root, top, pf); err != nil {
			return nil, err
		}
	}
	l.memories(root, prev, now)
	return l, nil
}

func (l *listing) problem(p, msg string) {
	l.problems = append(l.problems, brain.Problem{File: p, Error: msg})
}

const msgSymlinkFile = "symbolic links are not followed; move the file into the brain"

func (l *listing) authored(root, top string, pf *fastlist.Prefetch) error {
	st, err := os.Lstat(filepath.Join(root, top))
	if errors.Is(err, fs.ErrNotExist) {
		l.scopes = append(l.scopes, top+"/")
		return nil
	}
	if err != nil {
		l.problem(top, "cannot read folder: "+osReason(err))
		return nil
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		l.problem(top, scan.MsgSymlinkFolder)
		return nil
	}
	if !st.IsDir() {
		l.problem(top, "not a folder; notes belong in "+top+"/")
		return nil
	}
	// Inputs go straight into l.inputs (dropped again if the folder cannot be listed).
	start := len(l.inputs)
	entries := 0
	// walk applies the rules to folder rel, read as d.
	var walk func(rel string, depth int, d *fastlist.Folder) error
	walk = func(rel string, depth int, d *fastlist.Folder) error {
		list := d.Entries
		entries += len(list)
		if entries > scan.MaxEntries {
			return fmt.Errorf("%s: more than %d entries; split the folder", top, scan.MaxEntries)
		}
		for i, e := range list {
			name := e.Name()
			if strings.HasPrefix(name, ".") {
				continue // tool folders, editor locks (.#name), hidden files
			}
			p := rel + "/" + name // path.Join without its allocation: rel is clean, name plain
			typ := e.Type()
			switch {
			case !utf8.ValidString(name):
				// No address can name it, so it is reported and never indexed.
				if typ.IsDir() {
					l.inputs = append(l.inputs, l.skipped(root, p, scan.MsgInvalidName))
				} else if strings.HasSuffix(name, ".md") {
					l.inputs = append(l.inputs, skippedAt(d, i, p, scan.MsgInvalidName))
				}
			case typ.IsDir() && depth >= scan.MaxDepth:
				// Only the folder past the limit is left out, reported as a skipped file.
				l.inputs = append(l.inputs, l.skipped(root, p, scan.MsgTooDeep))
			case typ.IsDir():
				sub := readAuthored(pf, p)
				if sub.Err != nil {
					// Only the folder that cannot be read is left out: the rest of its
					// root still answers.
					if !errors.Is(sub.Err, fs.ErrNotExist) {
						l.inputs = append(l.inputs, l.skipped(root, p, "cannot read folder: "+osReason(sub.Err)))
					}
					continue
				}
				if err := walk(p, depth+1, sub); err != nil {
					return err
				}
			case typ&fs.ModeSymlink != 0:
				if strings.HasSuffix(name, ".md") {
					l.inputs = append(l.inputs, skippedAt(d, i, p, msgSymlinkFile))
				} else if isDir(root, p) {
					l.inputs = append(l.inputs, l.skipped(root, p, msgSymlinkFile))
				}
			case strings.HasSuffix(name, ".md"):
				in := inputAt(d, i, p)
				if in.path == "" {
					continue // vanished since the listing
				}
				if !typ.IsRegular() {
					in.err = "not a regular file"
				}
				l.inputs = append(l.inputs, in)
			}
		}
		return nil
	}
	if d := readAuthored(pf, top); d.Err != nil {
		err = fmt.Errorf("%s: cannot read folder: %s", top, osReason(d.Err))
	} else {
		err = walk(top, 1, d)
	}
	if err != nil {
		// The folder keeps what the cache holds until it can be listed again.
		clear(l.inputs[start:])
		l.inputs = l.inputs[:start]
		l.problem(top, strings.TrimPrefix(err.Error(), top+": "))
		return nil
	}
	l.scopes = append(l.scopes, top+"/")
	l.spans[top+"/"] = [2]int{start, len(l.inputs)}
	return nil
}

// readAuthored returns authored folder rel as read ahead.
func readAuthored(pf *fastlist.Prefetch, rel string) *fastlist.Folder {
	if onReadAuthored != nil {
		if err := onReadAuthored(rel); err != nil {
			return &fastlist.Folder{Err: err}
		}
	}
	return pf.Get(rel)
}

// inputAt fingerprints entry i of d at brain path p like listing.stat: an empty path means
// the file vanished.
func inputAt(d *fastlist.Folder, i int, p string) input {
	st := d.Stats[i]
	if !st.Taken {
		return input{} // never fingerprinted: only entries the rule asked for reach here
	}
	switch {
	case st.Err == nil:
		return input{path: p, fp: st.FP}
	case errors.Is(st.Err, fs.ErrNotExist):
		return input{}
	}
	return input{path: p, fp: unknown, err: "inaccessible file or folder; check permissions"}
}

// skippedAt is like listing.skipped for entry i of d: an input reported without being read.
func skippedAt(d *fastlist.Folder, i int, p, msg string) input {
	in := inputAt(d, i, p)
	if in.path == "" {
		in = input{path: p, fp: unknown}
	}
	in.err = msg
	return in
}

// noteCandidate reports the authored entries the walk fingerprints: notes, including
// symbolic links and other non-folders named *.md.
func noteCandidate(e fastlist.Entry) bool {
	return !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".md")
}

// recordCandidate reports the source entries the listing fingerprints.
func recordCandidate(e fastlist.Entry) bool {
	return !e.IsDir() && !strings.HasPrefix(e.Name(), ".") && strings.HasSuffix(e.Name(), ".json")
}

// stat fingerprints one path without following a symlink; an empty path means it vanished.
func (l *listing) stat(root, p string) input {
	fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
	if errors.Is(err, fs.ErrNotExist) {
		return input{}
	}
	if err != nil {
		return input{path: p, fp: unknown, err: "inaccessible file or folder; check permissions"}
	}
	return input{path: p, fp: fastlist.Of(fi)}
}

// skipped is an input reported without being read.
func (l *listing) skipped(root, p, msg string) input {
	in := l.stat(root, p)
	if in.path == "" {
		in = input{path: p, fp: unknown}
	}
	in.err = msg
	return in
}

func isDir(root, rel string) bool {
	st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && st.IsDir()
}

func (l *listing) memories(root string, prev func(string) (folderPrint, bool), now time.Time) {
	// A linked memories/ would serve records from outside the brain: it holds none.
	if st, err := os.Lstat(filepath.Join(root, "memories")); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		l.problem("memories", scan.MsgSymlinkFolder)
		l.sourcesKnown = true
		return
	}
	list, err := os.ReadDir(filepath.Join(root, "memories"))
	if errors.Is(err, fs.ErrNotExist) {
		l.sourcesKnown = true
		return
	}
	if err != nil {
		l.problem("memories", "cannot read folder: "+osReason(err))
		return
	}
	// Every stored source neither listed nor kept below is gone.
	l.sourcesKnown = true
	for _, e := range list {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue // .pending is the write journal, never records
		}
		folder := "memories/" + name
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			if isDir(root, folder) {
				l.problem(folder, "symbolic links are not followed; move the source folder into the brain")
			}
			continue
		case !e.IsDir():
			continue // bf validate reports stray files
		case !ref.ValidName(name):
			l.problem(folder, "record source folders must be named like sensors: lowercase letters, digits and hyphens")
			continue
		}
		l.source(root, name, prev, now)
	}
}

// source lists memories/NAME/ when it may have changed; otherwise its stored files stand.
func (l *listing) source(root, name string, prev func(string) (folderPrint, bool), now time.Time) {
	folder := "memories/" + name
	dir := filepath.Join(root, "memories", name)
	fi, err := os.Lstat(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			l.problem(folder, "cannot read folder: "+osReason(err))
			l.kept[folder] = true
		}
		return
	}
	fp := fastlist.Of(fi)
	cur := folderPrint{mtime: fp.Mtime, ctime: fp.Ctime, inode: fp.Inode}
	if prev != nil {
		old, ok := prev(folder)
		settled := now.Sub(time.Unix(0, cur.mtime)) >= settleTime
		if ok && settled && !old.subfolder && old.mtime == cur.mtime && old.ctime == cur.ctime && old.inode == cur.inode {
			l.kept[folder] = true
			return
		}
	}
	if onListSource != nil {
		onListSource(folder)
	}
	// One folder read, its record files fingerprinted in parallel relative to it.
	d := fastlist.ReadFolder(dir, recordCandidate, fastlist.Parallel)
	if d.Err != nil {
		l.problem(folder, "cannot read folder: "+osReason(d.Err))
		l.kept[folder] = true
		return
	}
	list := d.Entries
	if len(list) > scan.MaxEntries {
		l.problem(folder, fmt.Sprintf("more than %d entries; split the source", scan.MaxEntries))
		l.kept[folder] = true
		return
	}
	start := len(l.inputs)
	l.inputs = slices.Grow(l.inputs, len(list))
	for i, e := range list {
		fname := e.Name()
		if strings.HasPrefix(fname, ".") {
			continue // .write-* temporary files of an interrupted write
		}
		p := folder + "/" + fname
		typ := e.Type()
		switch {
		case typ.IsDir():
			cur.subfolder = true
		case !strings.HasSuffix(fname, ".json"):
			// not a record; bf validate reports stray files
		case typ&fs.ModeSymlink != 0:
			l.inputs = append(l.inputs, skippedAt(d, i, p, msgSymlinkFile))
		case !record.ValidFileName(fname): // scan.isRecordName without its regexp (a third of a 40k listing)
			l.inputs = append(l.inputs, skippedAt(d, i, p, "record files are named by the SHA-256 of the record id; run bf validate and reconcile it"))
		default:
			in := inputAt(d, i, p)
			if in.path == "" {
				continue
			}
			if !typ.IsRegular() {
				in.err = "not a regular file"
			}
			l.inputs = append(l.inputs, in)
		}
	}
	l.spans[folder+"/"] = [2]int{start, len(l.inputs)}
	l.folders[folder] = cur
	l.scopes = append(l.scopes, folder+"/")
}

// scopeInputs returns the inputs under scope: in the order listed, which is the same for
// the same files (digests use it), until sortedInputs sorts every input.
func (l *listing) scopeInputs(scope string) []input {
	if l.sorted {
		return within(l.inputs, scope)
	}
	sp, ok := l.spans[scope]
	if !ok {
		return nil
	}
	return l.inputs[sp[0]:sp[1]:sp[1]]
}

// sortInputs sorts inputs in path order, in place.
func sortInputs(in []input) {
	cmp := func(a, b input) int { return strings.Compare(a.path, b.path) }
	if !slices.IsSortedFunc(in, cmp) {
		slices.SortFunc(in, cmp)
	}
}

// sortedInputs returns the inputs in path order (sorted in place, once).
func (l *listing) sortedInputs() []input {
	if !l.sorted {
		sortInputs(l.inputs)
		l.sorted = true
	}
	return l.inputs
}

// osReason keeps an OS error's cause without the absolute path it carries.
func osReason(err error) string {
	if errors.Is(err, fs.ErrPermission) {
		return "inaccessible file or folder; check permissions"
	}
	return durable.Cause(err).Error()
}
