//go:build unix && !linux

package queue

import (
	"errors"
	"syscall"
)

// groupExists reports whether any process belongs to process group id (zombies too:
// this system offers no cheap way to tell them apart). A group of
// another account (EPERM) exists too.
func groupExists(id int) bool {
	return !errors.Is(syscall.Kill(-id, 0), syscall.ESRCH)
}
