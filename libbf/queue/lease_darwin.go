package queue

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// processStart returns the start time of process pid in microseconds. gone reports a
// process that does not exist or is a zombie.
func processStart(pid int) (start int64, gone bool, err error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.ESRCH) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	if int(kp.Proc.P_pid) != pid || kp.Proc.P_stat == 5 { // 5 is SZOMB
		return 0, true, nil
	}
	t := kp.Proc.P_starttime
	return int64(t.Sec)*1_000_000 + int64(t.Usec), false, nil
}

// bootID identifies this boot of the machine by its boot time.
func bootID() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return strconv.FormatInt(int64(tv.Sec), 10) + "." + strconv.FormatInt(int64(tv.Usec), 10)
}
