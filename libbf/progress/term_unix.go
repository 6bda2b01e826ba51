//go:build linux || darwin

package progress

import "golang.org/x/sys/unix"

// isTerminal asks the terminal driver for fd's settings, which only a terminal has.
func isTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), ioctlGetTermios)
	return err == nil
}
