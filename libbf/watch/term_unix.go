//go:build linux || darwin

package watch

import (
	"os"

	"golang.org/x/sys/unix"
)

// termSize is the terminal's width and height in characters.
func termSize(f *os.File) (int, int, error) {
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Col), int(ws.Row), nil
}

// rawMode reads the terminal key by key, without echo; its signal keys still work. It
// returns the function that restores the previous mode.
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
