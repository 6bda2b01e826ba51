package measure

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// keeperReady bounds how long bf watch --cache may take to answer: it compares the brain
// with the cache once before it does.
const keeperReady = 2 * time.Minute

// Keep starts bf watch --cache on the brain at dir and returns once it answers syncs, so
// every command run before stop asks it instead of listing the brain (Linux only).
func Keep(bf, dir string) (stop func() error, err error) {
	cmd := exec.Command(bf, "watch", "--cache", "--brain", dir)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	stopped := false
	stop = func() error {
		if stopped {
			return nil
		}
		stopped = true
		cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 130 {
			return nil // stopped by the signal, as asked
		}
		if err != nil {
			return fmt.Errorf("bf watch --cache: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	select {
	case l := <-line:
		if !strings.Contains(l, `"cache":"kept"`) {
			stop()
			return nil, fmt.Errorf("bf watch --cache did not start: %s", strings.TrimSpace(stderr.String()))
		}
	case <-time.After(keeperReady):
		stop()
		return nil, fmt.Errorf("bf watch --cache did not answer within %s", keeperReady)
	}
	return stop, nil
}
