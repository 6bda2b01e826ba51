package fastlist

import "syscall"

// statTimes are a file's modification and change times, in ns since the epoch.
func statTimes(st *syscall.Stat_t) (mtime, ctime int64) { return st.Mtim.Nano(), st.Ctim.Nano() }
