//go:build !linux && !darwin

package queue

import (
	"errors"
	"os"
	"syscall"
)

// processStart cannot read start times here: it only tells a process that no longer exists.
// PID reuse then keeps a dead owner's attempt counted as running, never the reverse.
func processStart(pid int) (start int64, gone bool, err error) {
	p, err := os.FindProcess(pid)
	if err != nil {
		return 0, true, nil
	}
	err = p.Signal(syscall.Signal(0))
	if errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH) {
		return 0, true, nil
	}
	return 0, false, nil
}

func bootID() string { return "" }
