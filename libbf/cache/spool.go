package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"unsafe"
)

// A build's search index is its slowest part, written on a connection of its own while the
// other tables are written beside it. The search rows go from one to the other through a
// spool: a temporary file the writer of the other tables appends batches of rows to, and
// the search index's writer reads back in order, right behind it. Unlike a queue in
// memory, it lets the parsing, the other tables and their indexes finish while the search
// index is still far behind, without holding the rows waiting (on the large bench brain,
// up to a hundred MiB) in the process's memory: they wait in the page cache. The file is
// removed as soon as it is created, so a build that is killed leaves nothing behind.
type spool struct {
	f *os.File

	mu     sync.Mutex
	more   *sync.Cond // signalled when size grows, the spool is closed or the reader stops
	size   int64      // bytes appended so far: complete batches only
	closed bool       // no batch follows
	failed bool       // the writer failed: its last batches may be missing
	stop   error      // why the reader stopped early, when it did

	out  []byte // the writer's encoding buffer
	read int64  // the reader's offset
}

// errSpoolDamaged says a batch read back is not one the writer appended.
var errSpoolDamaged = fmt.Errorf("the search rows' spool in %s is damaged; run bf build again", Dir)

// newSpool creates the spool's file in dir, already unlinked.
func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "search-*.spool")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	s := &spool{f: f}
	s.more = sync.NewCond(&s.mu)
	return s, nil
}

// put appends one batch of rows. It fails once the reader stopped, with the reader's error.
func (s *spool) put(rows []ftsRow) error {
	s.mu.Lock()
	at, stop := s.size, s.stop
	s.mu.Unlock()
	if stop != nil {
		return stop
	}
	b := append(s.out[:0], 0, 0, 0, 0, 0, 0, 0, 0) // the batch's length, set below
	for i := range rows {
		r := &rows[i]
		b = binary.AppendVarint(b, r.id)
		for _, v := range [...]string{r.title, r.text, r.names, r.context} {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		}
	}
	binary.LittleEndian.PutUint64(b, uint64(len(b)-8))
	s.out = b
	if _, err := s.f.WriteAt(b, at); err != nil {
		return fmt.Errorf("the search rows' spool in %s: %w", Dir, err)
	}
	s.mu.Lock()
	s.size += int64(len(b))
	s.mu.Unlock()
	s.more.Signal()
	return nil
}

// close tells the reader that no batch follows; failed when the writer stopped short.
func (s *spool) close(failed bool) {
	s.mu.Lock()
	s.closed, s.failed = true, failed
	s.mu.Unlock()
	s.more.Signal()
}

// halt makes every later put fail with err: the reader stopped.
func (s *spool) halt(err error) {
	s.mu.Lock()
	if s.stop == nil {
		s.stop = err
	}
	s.mu.Unlock()
}

// next waits for the next batch and returns its rows, io.EOF once the spool is closed and
// read to its end, or an error as soon as the writer failed. rows is reused.
func (s *spool) next(rows []ftsRow) ([]ftsRow, error) {
	s.mu.Lock()
	for s.read == s.size && !s.closed {
		s.more.Wait()
	}
	size, failed := s.size, s.failed
	s.mu.Unlock()
	if failed {
		return nil, errors.New("the build stopped")
	}
	if s.read == size {
		return nil, io.EOF
	}
	var head [8]byte
	if _, err := s.f.ReadAt(head[:], s.read); err != nil {
		return nil, fmt.Errorf("the search rows' spool in %s: %w", Dir, err)
	}
	n := int64(binary.LittleEndian.Uint64(head[:]))
	if n < 0 || s.read+8+n > size {
		return nil, errSpoolDamaged
	}
	// The rows' strings point into b, which is the batch's own: a string each would cost an
	// allocation and a copy per column.
	b := make([]byte, n)
	if _, err := s.f.ReadAt(b, s.read+8); err != nil {
		return nil, fmt.Errorf("the search rows' spool in %s: %w", Dir, err)
	}
	s.read += 8 + n
	rows = rows[:0]
	for len(b) > 0 {
		var r ftsRow
		id, k := binary.Varint(b)
		if k <= 0 {
			return nil, errSpoolDamaged
		}
		r.id, b = id, b[k:]
		for _, v := range [...]*string{&r.title, &r.text, &r.names, &r.context} {
			l, k := binary.Uvarint(b)
			if k <= 0 || l > uint64(len(b)-k) {
				return nil, errSpoolDamaged
			}
			if l > 0 {
				*v = unsafe.String(&b[k], int(l))
			}
			b = b[k+int(l):]
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// release closes the spool's file, which frees its space.
func (s *spool) release() error {
	return s.f.Close()
}
