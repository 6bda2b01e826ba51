package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
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
