//go:build unix && !linux

package cache

import "syscall"

// setLowPriority gives the process the lowest priority; outside Linux a nice value belongs
// to the whole process.
func setLowPriority() { syscall.Setpriority(syscall.PRIO_PROCESS, 0, lowestPriority) }
