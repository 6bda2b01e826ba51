package store

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bfgo/bf/libbf/durable"
)

// link makes a backup's hard link; tests replace it to take the copy path.
var link = os.Link

// backup keeps the file at path as dst: a hard link when the file system allows one (no
// bytes copied, and the old inode stays intact because every change replaces a file by a
// rename or unlinks it, never writes into it), else a synced byte copy.
func backup(path, dst string) error {
	err := link(path, dst)
	if err == nil || !linkRefused(err) {
		return err
	}
	in, perm, err := openFile(path)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// openFile opens the file at path for reading, never through a symbolic link, and returns
// it with its permission bits, which a copy keeps.
func openFile(path string) (*os.File, os.FileMode, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Mode().Perm(), nil
}

// linkRefused reports a file system that cannot hard-link this file (another device, no
// link support, too many links), as opposed to a real failure.
func linkRefused(err error) bool {
	for _, e := range []error{syscall.EXDEV, syscall.EPERM, syscall.EMLINK, syscall.ENOTSUP, syscall.EOPNOTSUPP, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// writeAtomic replaces dir/name by a synced temporary file .write-<32 hex> renamed over it;
// before, when set, runs between the sync and the rename. The caller syncs dir.
func writeAtomic(dir, name string, data []byte, perm fs.FileMode, before func() error) error {
	return replaceWith(dir, name, perm, before, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// replaceWith is writeAtomic with the content written by fill.
func replaceWith(dir, name string, perm fs.FileMode, before func() error, fill func(*os.File) error) error {
	var r [16]byte
	rand.Read(r[:])
	tmp := filepath.Join(dir, ".write-"+hex.EncodeToString(r[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, perm)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && before != nil {
		err = before()
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// makeDir creates dir (0755) when missing and syncs its parent so the new entry lasts.
func makeDir(parent, dir string) error {
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return durable.SyncDir(parent)
}

// sweepTemp removes the temporary files unfinished writes left in dir. They were never
// renamed into place, so they hold nothing anyone can lose.
func sweepTemp(dir string) error {
	names, err := readNames(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, n := range names {
		if tempName().MatchString(n) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}

// readNames lists a folder's entry names.
func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// sameFile reports whether a and b already hold the same bytes: one inode, or equal
// content. Errors count as different.
func sameFile(a, b string) bool {
	fa, err := os.OpenFile(a, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.OpenFile(b, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer fb.Close()
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	if err1 != nil || err2 != nil || !sa.Mode().IsRegular() || !sb.Mode().IsRegular() {
		return false
	}
	if os.SameFile(sa, sb) {
		return true
	}
	if sa.Size() != sb.Size() {
		return false
	}
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, ea := io.ReadFull(fa, ba)
		nb, eb := io.ReadFull(fb, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		if ea == io.EOF || ea == io.ErrUnexpectedEOF {
			return eb == ea
		}
		if ea != nil || eb != nil {
			return false
		}
	}
}
