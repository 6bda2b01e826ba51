package fastlist

import (
	"io/fs"

	"golang.org/x/sys/unix"
)

// FolderFile is one entry of a folder read by StatFolder: its name and type as os.ReadDir
// gives them and, for an entry asked for, its size and modification time as lstat gives
// them, or why lstat failed.
type FolderFile struct {
	Name    string
	Type    fs.FileMode
	Stated  bool  // the entry was asked for
	Size    int64 // when Stated and StatErr is nil
	ModTime int64 // Unix nanoseconds, when Stated and StatErr is nil
	StatErr error
}

// StatFolder lists dir in name order as os.ReadDir does (a symbolic link to the folder
// itself is followed, its errors are *fs.PathError) and takes the lstat of each entry want
// selects the way every cache open fingerprints notes (read.go): relative to the open
// folder and on a few goroutines at once. For a folder of thousands of files, those
// system calls are most of what reading it costs.
func StatFolder(dir string, want func(name string, typ fs.FileMode) bool) ([]FolderFile, error) {
	fd, err := openFollowing(dir)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer unix.Close(fd)
	entries, err := readEntries(fd)
	if err != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: dir, Err: err}
	}
	stats := make([]Stat, len(entries))
	fingerprintEntries(fd, entries, func(e Entry) bool { return want(e.name, e.typ) }, stats, Parallel)
	out := make([]FolderFile, len(entries))
	for i, e := range entries {
		st := stats[i]
		out[i] = FolderFile{Name: e.name, Type: e.typ, Stated: st.Taken, StatErr: st.Err}
		if st.Taken && st.Err == nil {
			out[i].Size, out[i].ModTime = st.FP.Size, st.FP.Mtime
		}
	}
	return out, nil
}

// openFollowing opens a folder for reading its entries, following a symbolic link as
// os.Open does.
func openFollowing(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}
