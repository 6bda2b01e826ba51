package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/config"
)

func spec(root, name string, cmd ...string) Spec {
	return Spec{
		Name: name, Root: root, Command: config.Command(cmd),
		Timeout: 20 * time.Second, MaxBytes: 1 << 20,
	}
}

var (
	stampRE   = regexp.MustCompile(`== \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z `)
	elapsedRE = regexp.MustCompile(` after \d+\.\ds ==`)
)

// readLog returns a log with its run times replaced, so entries compare exactly.
func readLog(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, LogPath(name)))
	if err != nil {
		t.Fatalf("reading log: %v", err)
	}
	s := stampRE.ReplaceAllString(string(b), "== TIME ")
	return elapsedRE.ReplaceAllString(s, " after N.Ns ==")
}

// gone reports a process that no longer runs; a zombie waiting for a reaper counts as gone.
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// readPid reads a pid a test program wrote.
func readPid(t *testing.T, root string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "child.pid"))
	if err != nil {
		t.Fatalf("the test program did not record its helper: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func assertGone(t *testing.T, pid int) {
	t.Helper()
	for range 300 {
		if gone(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("helper process %d survived the run", pid)
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return e
}
