package cache

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A damaged page can read as another valid value: SQLite's own checks (quick_check, the
// b-tree checks of every read) catch damage to its structures, not a flipped bit in a row,
// an index entry pointing elsewhere or a zeroed leaf of the search index, which then answer
// wrongly with no error. The seal catches any change to the live file that bf did not make:
// whoever changes the file (a build, a refresh whose checkpoint copies the write-ahead log
// into it) does so under the writer lock and, before releasing it, writes the file's
// fingerprint and a CRC-32C of its bytes beside it (sealFile). Every Open compares the
// file's fingerprint with the seal, one stat it makes anyway and one small read; only when
// they differ is the file read whole, under the writer lock, and a CRC that differs from
// the seal's is damage: the generation is rebuilt. Readers open the file read-only, so a
// closing reader never checkpoints into it behind the seal.
//
// What it does not see: damage that leaves size, modification time and inode as they were
// (a disk that corrupts bytes silently), damage to the -wal file, and damage between a
// writer's last change and its seal.

// SealFile is the seal of the live generation in .bf/.
const SealFile = "index.sqlite.seal"

// seal is what the last writer recorded of the live file.
type seal struct {
	size, mtime int64
	inode       uint64
	sum         uint32
}

// castagnoli is CRC-32C, which the processor computes (the seal detects damage, not an
// adversary: a collision needs a change that keeps the file's CRC).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// errSealBroken is a live file whose bytes differ from its seal's.
var errSealBroken = errors.New("the search cache in .bf changed outside bf")

// onSealRead is called each time the live file is read whole to compare or make a seal
// (tests count it).
var onSealRead func()

func sealOf(st fs.FileInfo) seal {
	return seal{size: st.Size(), mtime: st.ModTime().UnixNano(), inode: inodeOf(st)}
}

// sameFile reports whether the seal describes a file with st's fingerprint.
func (s seal) sameFile(st fs.FileInfo) bool {
	f := sealOf(st)
	return s.size == f.size && s.mtime == f.mtime && s.inode == f.inode
}

func (s seal) String() string {
	return fmt.Sprintf("%d %d %d %08x\n", s.size, s.mtime, s.inode, s.sum)
}

func readSeal(dir string) (seal, bool) {
	data, err := os.ReadFile(filepath.Join(dir, SealFile))
	if err != nil {
		return seal{}, false
	}
	f := strings.Fields(string(data))
	if len(f) != 4 {
		return seal{}, false
	}
	var s seal
	var errs [4]error
	s.size, errs[0] = strconv.ParseInt(f[0], 10, 64)
	s.mtime, errs[1] = strconv.ParseInt(f[1], 10, 64)
	s.inode, errs[2] = strconv.ParseUint(f[2], 10, 64)
	sum, err := strconv.ParseUint(f[3], 16, 32)
	errs[3] = err
	s.sum = uint32(sum)
	if errors.Join(errs[:]...) != nil {
		return seal{}, false
	}
	return s, true
}

// sumFile reads the live file whole: its seal, or ok=false when it changed while read.
func sumFile(live string) (seal, bool, error) {
	f, err := os.OpenFile(live, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return seal{}, false, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return seal{}, false, err
	}
	if onSealRead != nil {
		onSealRead()
	}
	h := crc32.New(castagnoli)
	buf := make([]byte, 1<<20)
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return seal{}, false, err
	}
	after, err := f.Stat()
	if err != nil {
		return seal{}, false, err
	}
	s := sealOf(after)
	s.sum = h.Sum32()
	return s, sealOf(before) == sealOf(after), nil
}

// sealFile records the live file's seal unless it is current; with no live file it removes
// the seal. Call it holding the writer lock, after every connection that wrote is closed.
// It is best effort: a missing or stale seal costs the next Open a read of the file (or a
// rebuild, when the file changed after its last seal).
func sealFile(dir string) {
	live := filepath.Join(dir, IndexFile)
	st, err := os.Lstat(live)
	if err != nil || !st.Mode().IsRegular() {
		os.Remove(filepath.Join(dir, SealFile))
		return
	}
	if s, ok := readSeal(dir); ok && s.sameFile(st) {
		return
	}
	s, steady, err := sumFile(live)
	if err != nil || !steady {
		return
	}
	writeSeal(dir, s)
}

func writeSeal(dir string, s seal) {
	tmp := filepath.Join(dir, SealFile+".new")
	if err := os.WriteFile(tmp, []byte(s.String()), 0o600); err != nil {
		os.Remove(tmp)
		return
	}
	if err := os.Rename(tmp, filepath.Join(dir, SealFile)); err != nil {
		os.Remove(tmp)
	}
}

// releaseWriter seals the live file, then releases the writer lock.
func releaseWriter(dir string, writer *lock) {
	sealFile(dir)
	writer.release()
}

// checkSeal compares the live file (st) with its seal. Only a file that differs from its
// seal is read, holding the writer lock, which is tried once: a writer that holds it is
// changing the file and seals it when done. It returns errSealBroken for a file whose bytes
// are not the sealed ones. A file without a seal (a cache written before seals) is sealed
// as it is.
func checkSeal(ctx context.Context, dir string, st fs.FileInfo) error {
	if s, ok := readSeal(dir); ok && s.sameFile(st) {
		return nil
	}
	writer, err := acquire(ctx, dir, WriterLockFile, true, 0)
	if err != nil {
		return nil // busy: the writer seals the file it is changing
	}
	defer writer.release()
	live := filepath.Join(dir, IndexFile)
	now, err := os.Lstat(live)
	if err != nil {
		return nil // replaced or removed meanwhile: Open looks at it again
	}
	old, sealed := readSeal(dir)
	if sealed && old.sameFile(now) {
		return nil // sealed meanwhile
	}
	cur, steady, err := sumFile(live)
	if err != nil || !steady {
		return nil
	}
	if sealed && old.inode == cur.inode && old.sum != cur.sum {
		return errSealBroken
	}
	// Unsealed, another file in place (a copy), or the same bytes with another time.
	writeSeal(dir, cur)
	return nil
}
