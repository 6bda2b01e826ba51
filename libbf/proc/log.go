package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/timestamp"
)

// Log bounds.
const (
	maxStderr = 256 << 10 // newest stderr bytes kept from one run
	maxLog    = 1 << 20   // a log file keeps its newest whole entries within this size
)

// LogPath is the brain-relative log of the program called name.
func LogPath(name string) string { return "logs/" + name + ".log" }

// entry is one run in a log. Runs write their marker line first; long-lived programs write
// it last, so the line that closes a stream's log says how it ended.
type entry struct {
	marker  string // "== TIME OUTCOME ==" without the newline
	body    []byte
	trailer bool
}

func (e entry) encode() []byte {
	var b bytes.Buffer
	if !e.trailer {
		b.WriteString(e.marker + "\n")
	}
	b.Write(e.body)
	if len(e.body) > 0 && e.body[len(e.body)-1] != '\n' {
		b.WriteByte('\n')
	}
	if e.trailer {
		b.WriteString(e.marker + "\n")
	}
	return b.Bytes()
}

// fit shrinks an entry larger than the whole log to its marker and its newest bytes.
func (e entry) fit(limit int) []byte {
	enc := e.encode()
	if len(enc) <= limit {
		return enc
	}
	m := len(e.marker) + 1
	var body []byte
	if e.trailer {
		body = enc[:len(enc)-m]
	} else {
		body = enc[m:]
	}
	body = runeStart(body[len(body)-(limit-m):])
	if e.trailer {
		return append(append([]byte(nil), body...), e.marker+"\n"...)
	}
	return append([]byte(e.marker+"\n"), body...)
}

// runeStart drops the continuation bytes a cut left at the front.
func runeStart(b []byte) []byte {
	for i := 0; i < len(b) && i < utf8.UTFMax; i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}

// isMarker recognises "== <canonical time> ... ==" lines. Program text could imitate one;
// that only moves where the log is trimmed.
func isMarker(line []byte) bool {
	const ts = len("2006-01-02T15:04:05.000000Z")
	if len(line) < 3+ts+4 || !bytes.HasPrefix(line, []byte("== ")) || !bytes.HasSuffix(line, []byte(" ==")) || line[3+ts] != ' ' {
		return false
	}
	s := string(line[3 : 3+ts])
	t, err := timestamp.Parse(s)
	return err == nil && timestamp.Canonical(t) == s
}

// compose appends an entry to the tail of a log and drops the oldest whole entries until it
// fits within limit. partial says old does not start at the file's beginning, so its first
// entry may be cut and is never kept.
func compose(old []byte, partial bool, e entry, limit int) []byte {
	enc := e.encode()
	if len(enc) > limit {
		return e.fit(limit)
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old[:len(old):len(old)], '\n')
	}
	budget := limit - len(enc)
	for _, c := range cuts(old, partial, e.trailer) {
		if len(old)-c <= budget {
			out := make([]byte, 0, len(old)-c+len(enc))
			return append(append(out, old[c:]...), enc...)
		}
	}
	return enc
}

// cuts lists, in order, the offsets where a whole entry of old begins.
func cuts(old []byte, partial, trailer bool) []int {
	var out []int
	if !partial {
		out = append(out, 0)
	}
	for i := 0; i < len(old); {
		end := bytes.IndexByte(old[i:], '\n')
		if end < 0 {
			end = len(old) - i
		}
		next := i + end + 1
		if isMarker(old[i : i+end]) {
			if trailer {
				out = append(out, min(next, len(old)))
			} else if i > 0 || partial {
				out = append(out, i)
			}
		}
		i = next
	}
	return append(out, len(old))
}

// appendLog adds an entry to root/logs/NAME.log. The file is replaced through a synced
// temporary file, so a crash leaves either the old or the new log, never a torn one; a lock
// on logs/ keeps concurrent runs from losing each other's entries.
func appendLog(root, name string, e entry) error {
	dir := filepath.Join(root, "logs")
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("cannot create logs/: %w", err)
		}
	case err != nil:
		return fmt.Errorf("cannot read logs/: %w", err)
	case !fi.IsDir():
		return errors.New("logs/ is not a folder; move it away so bf can keep program logs there")
	}
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("cannot open logs/: %w", err)
	}
	defer d.Close()
	if err := flock(d); err != nil {
		return fmt.Errorf("cannot lock logs/: %w", err)
	}

	rel := LogPath(name)
	path := filepath.Join(dir, name+".log")
	old, partial, err := readTail(path, maxLog)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w; move it away", rel, err)
	}
	data := compose(old, partial, e, maxLog)

	if err := durable.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("cannot write %s: %w", rel, err)
	}
	return nil
}

// Note appends an entry of bf's own to logs/NAME.log under root: a header line
// "== TIME OUTCOME ==" and no body. Callers record there what they decided after a run
// (output refused, say), so the log a message names tells the whole story.
func Note(root, name, outcome string) error {
	return appendLog(root, name, entry{marker: "== " + timestamp.Canonical(time.Now()) + " " + oneLine(outcome) + " =="})
}

// readTail reads at most the last limit bytes of a log; a missing log is empty.
func readTail(path string, limit int64) ([]byte, bool, error) {
	f, err := openNoFollow(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, false, errors.New("it is a symbolic link")
		}
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, errors.New("it is not a regular file")
	}
	off := max(fi.Size()-limit, 0)
	data, err := io.ReadAll(io.NewSectionReader(f, off, limit))
	return data, off > 0, err
}

func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// oneLine keeps caller-supplied outcome text on the marker line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// ring keeps the newest max bytes written to it.
type ring struct {
	buf     []byte
	max     int
	dropped bool
}

func (r *ring) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= r.max {
		r.dropped = r.dropped || len(r.buf) > 0 || len(p) > r.max
		r.buf = append(r.buf[:0], p[len(p)-r.max:]...)
		return n, nil
	}
	if over := len(r.buf) + len(p) - r.max; over > 0 {
		r.dropped = true
		r.buf = r.buf[:copy(r.buf, r.buf[over:])]
	}
	r.buf = append(r.buf, p...)
	return n, nil
}

func (r *ring) Bytes() []byte {
	if r.dropped {
		return runeStart(r.buf)
	}
	return r.buf
}
