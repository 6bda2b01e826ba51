//go:build unix && !linux

package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit reaps the leader. Its group id stays reserved while any descendant lives, which
// is when the final group kill matters.
func awaitExit(p *os.Process) *os.ProcessState {
	st, _ := p.Wait()
	return st
}

func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
