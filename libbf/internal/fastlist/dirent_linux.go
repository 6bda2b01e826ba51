package fastlist

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// readEntries lists the open folder fd in name order, without "." and "..". An entry whose
// record gives no type is typed by lstat, as os.ReadDir does.
func readEntries(fd int) ([]Entry, error) {
	var out []Entry
	// One buffer per goroutine at a time, not a fresh 32 KiB per folder.
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		for b := buf[:n]; len(b) > 0; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name NUL-terminated.
			if len(b) < 19 {
				return nil, unix.EIO
			}
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, unix.EIO
			}
			rec := b[:reclen]
			b = b[reclen:]
			if binary.NativeEndian.Uint64(rec[0:8]) == 0 {
				continue // a deleted file
			}
			name := rec[19:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) == "." || string(name) == ".." {
				continue
			}
			e := Entry{name: string(name)}
			switch rec[18] {
			case unix.DT_REG:
			case unix.DT_DIR:
				e.typ = fs.ModeDir
			case unix.DT_LNK:
				e.typ = fs.ModeSymlink
			case unix.DT_FIFO:
				e.typ = fs.ModeNamedPipe
			case unix.DT_SOCK:
				e.typ = fs.ModeSocket
			case unix.DT_BLK:
				e.typ = fs.ModeDevice
			case unix.DT_CHR:
				e.typ = fs.ModeDevice | fs.ModeCharDevice
			default:
				var st unix.Stat_t
				if err := fstatat(fd, e.name, &st); err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						continue // vanished, as os.ReadDir skips it
					}
					return nil, err
				}
				e.typ = modeOf(st.Mode)
			}
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// direntBufs are the getdents buffers of readEntries.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}
