package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit waits for the leader to exit without reaping it: while it stays a zombie its
// process group id cannot be reused, so the final group kill cannot hit a stranger.
func awaitExit(p *os.Process) *os.ProcessState {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return nil
		}
	}
}

func flock(f *os.File) error {
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			return err
		}
	}
}
