package fastlist

import (
	"io/fs"
	"syscall"
)

// A Fingerprint identifies a file's content without reading it. Times are ns since the
// epoch.
type Fingerprint struct{ Size, Mtime, Ctime, Inode int64 }

// Unknown marks a file whose fingerprint could not be taken: it never matches, so the file
// is compared again next time.
var Unknown = Fingerprint{-1, -1, -1, -1}

// Of is the fingerprint of a file as lstat or stat described it.
func Of(fi fs.FileInfo) Fingerprint {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return Fingerprint{fi.Size(), fi.ModTime().UnixNano(), 0, 0}
	}
	mtime, ctime := statTimes(st)
	return Fingerprint{st.Size, mtime, ctime, int64(st.Ino)}
}
