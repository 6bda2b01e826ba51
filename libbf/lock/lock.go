// Package lock holds advisory flock(2) locks on files in a private folder (a brain's .bf/,
// a machine state folder). Each Acquire opens its own descriptor, so two holders in one
// process exclude each other exactly as two processes do, and the kernel drops a lock when
// its holder dies: a killed writer never leaves a stale lock behind. (A child the holder
// was starting as it died may keep the lock for the moment until it executes its program;
// AcquireOwned, for locks held for a process's whole run, waits for that.)
package lock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBusy reports a lock that another holder kept for the whole wait.
var ErrBusy = errors.New("lock is busy")

// pollInterval is how often a waiting Acquire tries again. flock has no timed wait, and a
// blocking call could not be abandoned when ctx ends.
const pollInterval = 20 * time.Millisecond

// Lock is one held flock.
type Lock struct{ f *os.File }

// Acquire takes the lock on dir/name, shared or exclusive, creating the file (0600) when
// missing. It retries until wait has passed (0: one try) and then fails with ErrBusy; it
// stops early with ctx's error. dir must exist. A failure to open the file is returned as
// the *fs.PathError of the open, so callers can explain it for the folder they manage.
func Acquire(ctx context.Context, dir, name string, exclusive bool, wait time.Duration) (*Lock, error) {
	// O_NOFOLLOW: a symlink planted in the folder must not make us create or lock a file
	// elsewhere.
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, &os.PathError{Op: "lock", Path: path, Err: err}
		}
		if !time.Now().Before(deadline) {
			f.Close()
			return nil, ErrBusy
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// Release drops the lock. Releasing a nil or released Lock does nothing.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close() // the flock goes with the last descriptor of the open file
		l.f = nil
	}
}

// exitedWait bounds how long AcquireOwned waits for a lock whose recorded holder has exited.
// A child keeps the lock until it executes its program, which on a loaded machine may wait
// for a core; a holder misjudged as exited (a reused process id, another pid namespace)
// costs a start this long and then the same ErrBusy.
var exitedWait = 5 * time.Second

// AcquireOwned takes the lock on dir/name exclusive for a process that holds it as long as
// it runs (a collecting bf watch), and records the process's id in the file. It never waits
// for a live holder: busy, it fails at once with ErrBusy, unless the holder it finds
// recorded has exited. Then the lock is only held by a child that holder was starting when
// it died: a forked child has a copy of every descriptor, the lock's among them, until it
// executes its program, when close-on-exec drops it, and the kernel keeps a flock while
// any copy is open. AcquireOwned waits for that, up to exitedWait.
func AcquireOwned(ctx context.Context, dir, name string) (*Lock, error) {
	deadline := time.Now().Add(exitedWait)
	for {
		l, err := Acquire(ctx, dir, name, true, 0)
		if err == nil {
			if err := l.own(); err != nil {
				l.Release()
				return nil, &os.PathError{Op: "write", Path: filepath.Join(dir, name), Err: err}
			}
			return l, nil
		}
		if !errors.Is(err, ErrBusy) || !holderExited(dir, name) || !time.Now().Before(deadline) {
			return nil, err
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// own writes the process's id into the lock's file, replacing the previous holder's.
func (l *Lock) own() error {
	id := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if _, err := l.f.WriteAt(id, 0); err != nil {
		return err
	}
	return l.f.Truncate(int64(len(id)))
}

// holderExited reports whether the process AcquireOwned last recorded in dir/name has
// exited. No record, or one that does not read, is a holder that may live.
func holderExited(dir, name string) bool {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 32)
	n, _ := f.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil || pid <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
