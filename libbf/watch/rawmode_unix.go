//go:build linux || darwin

package watch

import (
	"os"

	"golang.org/x/sys/unix"
)

// rawMode reads the terminal key by key, without echo; unlike term.MakeRaw it leaves the
// signal keys working, so Ctrl-C still stops everything. It returns the function that
// restores the previous mode.
func rawMode(f *os.File) (func(), error) {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	old := *t
	t.Lflag &^= unix.ICANON | unix.ECHO
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return nil, err
	}
	return func() { unix.IoctlSetTermios(fd, ioctlSetTermios, &old) }, nil
}
