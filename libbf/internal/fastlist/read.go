// Package fastlist reads a brain's folders the way the cache's listing needs them, fast:
// each folder's entries with raw system calls, and the fingerprints of the files a rule
// asks for, several folders at once.
package fastlist

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bfgo/bf/libbf/scan"
	"golang.org/x/sys/unix"
)

// Every open fingerprints every note (one lstat each) and reads every authored folder: with
// 10,000 notes that is the largest part of a warm search (about 20 ms of system calls on
// two cores). Three things make it cheaper without changing what is compared:
//   - a folder is read once and its files are fingerprinted with fstatat relative to the
//     open folder, which spares the kernel a walk of the whole path per file;
//   - folders are read with plain system calls, not os.File (no poller registration);
//   - folders (and a large source folder's files, in chunks) are read by a few goroutines
//     at once, since the time is spent in system calls that run in parallel on several
//     cores.
//
// The cache's listing (cache/list.go) then applies the listing rules in order over what
// was read, so errors, limits and skipped files are exactly those of a sequential walk.

// statChunk is how many files of one folder one goroutine fingerprints.
const statChunk = 512

// workers bounds the goroutines reading folders and fingerprinting files at once.
var workers = max(1, min(runtime.GOMAXPROCS(0), 8))

// Stat is one file's fingerprint, or why it could not be taken.
type Stat struct {
	Taken bool // false for an entry no rule asked for
	FP    Fingerprint
	Err   error
}

// Folder is one folder: its entries in name order, as os.ReadDir returns them, and
// the fingerprints of the entries a rule asked for (by index; not taken for the others).
type Folder struct {
	Entries []Entry
	Stats   []Stat
	// Fingerprinted counts the entries with a fingerprint (taken or failed).
	Fingerprinted int
	Err           error
}

// Parallel runs fns on at most a few goroutines and returns when all are done.
func Parallel(fns []func()) {
	if len(fns) == 1 || workers == 1 {
		inline(fns)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, len(fns)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(fns)); i = next.Add(1) - 1 {
				fns[i]()
			}
		})
	}
	wg.Wait()
}

// ReadFolder reads dir like os.ReadDir (without following a symbolic link) and fingerprints
// the entries want selects, relative to the open folder; run runs the chunks of
// fingerprints (in parallel or not). A folder past the entry limit is only listed: it is
// reported, not indexed.
func ReadFolder(dir string, want func(Entry) bool, run func([]func())) *Folder {
	fd, err := openFolder(dir)
	if err != nil {
		return &Folder{Err: &fs.PathError{Op: "open", Path: dir, Err: err}}
	}
	defer unix.Close(fd)
	entries, err := readEntries(fd)
	if err != nil {
		return &Folder{Err: &fs.PathError{Op: "readdirent", Path: dir, Err: err}}
	}
	d := &Folder{Entries: entries, Stats: make([]Stat, len(entries))}
	if len(entries) > scan.MaxEntries {
		return d
	}
	d.Fingerprinted = fingerprintEntries(fd, entries, want, d.Stats, run)
	return d
}

// fingerprintEntries fingerprints the entries of the open folder fd that want selects into
// stats (by index), in chunks of statChunk files that run runs, and returns how many it
// fingerprinted (taken or failed).
func fingerprintEntries(fd int, entries []Entry, want func(Entry) bool, stats []Stat, run func([]func())) int {
	var chunks []func()
	total := 0
	for start := 0; start < len(entries); start += statChunk {
		part := entries[start:min(start+statChunk, len(entries))]
		out := stats[start : start+len(part)]
		n := 0
		for _, e := range part {
			if want(e) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		total += n
		chunks = append(chunks, func() {
			var st unix.Stat_t
			for k, e := range part {
				if !want(e) {
					continue
				}
				if err := fstatat(fd, e.name, &st); err != nil {
					out[k] = Stat{Taken: true, Err: err}
					continue
				}
				out[k] = Stat{Taken: true, FP: Fingerprint{st.Size, st.Mtim.Nano(), st.Ctim.Nano(), int64(st.Ino)}}
			}
		})
	}
	run(chunks)
	return total
}

// openFolder opens a folder for reading its entries, never through a symbolic link. It
// skips what os.Open adds for a file (a poller registration, non-blocking mode): a
// measurable share when every open reads thousands of folders.
func openFolder(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// fstatat is lstat of name in the open folder fd.
func fstatat(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}

// An Entry is one folder entry, typed from its directory record like os.ReadDir's. The
// listing needs only its name and type (a value, not an fs.DirEntry: one allocation less
// per file).
type Entry struct {
	name string
	typ  fs.FileMode
}

func (e Entry) Name() string      { return e.name }
func (e Entry) IsDir() bool       { return e.typ.IsDir() }
func (e Entry) Type() fs.FileMode { return e.typ }

// modeOf is the type bits of a stat mode.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	}
	return 0
}

// A Prefetch reads folders ahead of the walk, level by level, each level's
// folders shared by a few goroutines (a goroutine per folder costs more in scheduling than
// the folder's system calls).
type Prefetch struct {
	root    string
	want    func(Entry) bool
	folders map[string]*Folder
	// Files counts the files fingerprinted, to size a listing.
	Files int
}

// ReadAhead reads the folders tops (relative to root, at depth 1) and every folder below
// them, fingerprinting the entries want selects.
// A folder that cannot be read, or is not a real folder, is left to the walk, which also
// reads on demand what a tree past the entry limit or the depth limit still needs.
func ReadAhead(root string, tops []string, want func(Entry) bool) *Prefetch {
	pf := &Prefetch{root: root, want: want, folders: map[string]*Folder{}}
	level := tops
	total := map[string]int{} // entries read under each top, which has the entry limit
	for depth := 1; len(level) > 0 && depth <= scan.MaxDepth; depth++ {
		read := make([]*Folder, len(level))
		jobs := make([]func(), len(level))
		for i, rel := range level {
			jobs[i] = func() {
				// A large folder's chunks run inline: the other folders keep the workers busy.
				read[i] = ReadFolder(filepath.Join(root, filepath.FromSlash(rel)), want, inline)
			}
		}
		Parallel(jobs)
		var next []string
		for i, d := range read {
			if d.Err != nil {
				continue
			}
			pf.folders[level[i]] = d
			pf.Files += d.Fingerprinted
			top, _, _ := strings.Cut(level[i], "/")
			if total[top] += len(d.Entries); total[top] > scan.MaxEntries {
				continue
			}
			for _, e := range d.Entries {
				if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
					next = append(next, path.Join(level[i], e.Name()))
				}
			}
		}
		level = next
	}
	return pf
}

// inline runs fns one after the other.
func inline(fns []func()) {
	for _, f := range fns {
		f()
	}
}

// Get returns folder rel as read ahead, or reads it now like os.ReadDir.
func (pf *Prefetch) Get(rel string) *Folder {
	if d := pf.folders[rel]; d != nil {
		return d
	}
	full := filepath.Join(pf.root, filepath.FromSlash(rel))
	entries, err := os.ReadDir(full)
	if err != nil {
		return &Folder{Err: err}
	}
	d := &Folder{Entries: make([]Entry, len(entries)), Stats: make([]Stat, len(entries))}
	for i, e := range entries {
		d.Entries[i] = Entry{e.Name(), e.Type()}
		if pf.want(d.Entries[i]) {
			fi, err := os.Lstat(filepath.Join(full, e.Name()))
			if err != nil {
				d.Stats[i] = Stat{Taken: true, Err: err}
			} else {
				d.Stats[i] = Stat{Taken: true, FP: Of(fi)}
			}
		}
	}
	return d
}
