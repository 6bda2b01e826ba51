package durable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"syscall"
)

// The refusals of ReadRegular, worded to follow a file's name.
var (
	ErrSymlink    = errors.New("is a symbolic link")
	ErrNotRegular = errors.New("is not a regular file")
)

// TooLargeError refuses a file of more than Limit bytes.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string { return fmt.Sprintf("is larger than %d bytes", e.Limit) }

// ReadWithin reads r to its end, such as stdin from another program, refusing more than
// limit bytes with a *TooLargeError, and gives up with ctx's error when ctx ends first: a
// writer that never closes its end of the pipe does not hang the reader. The read itself
// cannot be interrupted; it goes on unseen until the process exits.
func ReadWithin(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, limit+1))
		done <- read{data, err}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case got := <-done:
		if got.err != nil {
			return nil, got.err
		}
		if int64(len(got.data)) > limit {
			return nil, &TooLargeError{Limit: limit}
		}
		return got.data, nil
	}
}

// ReadRegular reads a file someone else may have written: only a regular file, never
// through a symbolic link, never waiting on a FIFO, and at most limit bytes, however the
// file grows while it is read. It uses the system calls directly: a build reads every file
// of a brain, and an *os.File costs each one a failed poller registration and a read per
// doubling of its buffer, where this costs open, fstat, one read and close.
func ReadRegular(path string, limit int64) ([]byte, error) {
	fd, err := retry(func() (int, error) {
		return syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	})
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, ErrSymlink
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if _, err := retry(func() (int, error) { return 0, syscall.Fstat(fd, &st) }); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, ErrNotRegular
	}
	if st.Size > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	// One byte more than the file holds, so the read that fills it sees a file that grew.
	data := make([]byte, 0, st.Size+1)
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data))
		}
		want := cap(data) - len(data)
		n, err := retry(func() (int, error) { return syscall.Read(fd, data[len(data):cap(data)]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		data = data[:len(data)+n]
		// A read that stops short at the size fstat gave has met the end of the file:
		// a regular file's read returns less than asked only there.
		if n == 0 || n < want && int64(len(data)) == st.Size {
			return data, nil
		}
		if int64(len(data)) > limit {
			return nil, &TooLargeError{Limit: limit}
		}
	}
}

// retry runs a system call again while a signal interrupts it.
func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
