package cache

import (
	"os"
	"strconv"
	"syscall"
)

// setLowPriority gives every thread of the process the lowest priority. On Linux a nice
// value belongs to a thread, and a new thread takes its creator's: every thread is set, and
// the list read again until no thread is new, so none created meanwhile keeps the old one.
func setLowPriority() {
	done := map[int]bool{}
	for {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			syscall.Setpriority(syscall.PRIO_PROCESS, 0, lowestPriority)
			return
		}
		found := false
		for _, t := range tasks {
			tid, err := strconv.Atoi(t.Name())
			if err != nil || done[tid] {
				continue
			}
			found = true
			done[tid] = true
			syscall.Setpriority(syscall.PRIO_PROCESS, tid, lowestPriority)
		}
		if !found {
			return
		}
	}
}
