package durable

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "small"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big"), []byte("hello, world"), 0o644))
	must(os.Symlink("small", filepath.Join(dir, "link")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(os.Mkdir(filepath.Join(dir, "folder"), 0o755))

	tests := []struct {
		name, data, err string
		is              error
	}{
		{name: "small", data: "hello"},
		{name: "big", err: "is larger than 8 bytes"},
		{name: "link", err: "is a symbolic link", is: ErrSymlink},
		{name: "fifo", err: "is not a regular file", is: ErrNotRegular},
		{name: "folder", err: "is not a regular file", is: ErrNotRegular},
		{name: "missing", is: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ReadRegular(filepath.Join(dir, tt.name), 8)
			if string(data) != tt.data {
				t.Errorf("data %q, want %q", data, tt.data)
			}
			switch {
			case tt.is != nil && !errors.Is(err, tt.is):
				t.Errorf("error %v, want %v", err, tt.is)
			case tt.err != "" && (err == nil || err.Error() != tt.err):
				t.Errorf("error %v, want %q", err, tt.err)
			case tt.is == nil && tt.err == "" && err != nil:
				t.Errorf("error %v", err)
			}
		})
	}
	var tl *TooLargeError
	if _, err := ReadRegular(filepath.Join(dir, "big"), 8); !errors.As(err, &tl) || tl.Limit != 8 {
		t.Errorf("big: %v is not a TooLargeError of 8", err)
	}
}

// ReadWithin reads a stream to its end within a limit, and gives up when its context ends.
func TestReadWithin(t *testing.T) {
	expired, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	never, _ := io.Pipe() // a writer that never writes nor closes
	for _, c := range []struct {
		name string
		ctx  context.Context
		r    io.Reader
		want string
		err  error
	}{
		{"to its end", context.Background(), strings.NewReader("four"), "four", nil},
		{"at the limit", context.Background(), strings.NewReader("abcde"), "abcde", nil},
		{"over the limit", context.Background(), strings.NewReader("abcdef"), "", &TooLargeError{Limit: 5}},
		{"never ends", expired, never, "", context.DeadlineExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadWithin(c.ctx, c.r, 5)
			if string(got) != c.want {
				t.Errorf("read %q, want %q", got, c.want)
			}
			var tooLarge *TooLargeError
			switch {
			case c.err == nil && err != nil:
				t.Errorf("error %v", err)
			case errors.As(c.err, &tooLarge) && (!errors.As(err, &tooLarge) || tooLarge.Limit != 5):
				t.Errorf("error %v, want %v", err, c.err)
			case errors.Is(c.err, context.DeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded):
				t.Errorf("error %v, want %v", err, c.err)
			}
		})
	}
}
