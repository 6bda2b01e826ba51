package queue

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processStart returns the start time of process pid in clock ticks since boot (field 22 of
// /proc/PID/stat). gone reports a process that does not exist or is a zombie: it can no
// longer act.
func processStart(pid int) (start int64, gone bool, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return 0, true, nil
	}
	if err != nil {
		return 0, false, err
	}
	// The command name in parentheses may hold spaces and parentheses: fields start after
	// the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, false, errors.New("unreadable process status")
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return 0, false, errors.New("unreadable process status")
	}
	if fields[0] == "Z" || fields[0] == "X" {
		return 0, true, nil
	}
	start, err = strconv.ParseInt(fields[19], 10, 64)
	return start, false, err
}

// bootID identifies this boot of the machine.
func bootID() string {
	data, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// groupExists reports whether a process that is not a zombie belongs to process group
// id. Zombies are left out: an orphan that exited stays one until reaped, which a
// container's first process may never do. A process whose status cannot be read is
// skipped, as it may have ended meanwhile.
func groupExists(id int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	want := strconv.Itoa(id)
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		// After the command: state, parent, process group.
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) >= 3 && fields[2] == want && fields[0] != "Z" && fields[0] != "X" {
			return true
		}
	}
	return false
}
