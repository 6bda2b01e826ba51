package queue

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

var epoch = time.Date(2026, 10, 16, 9, 0, 0, 0, time.UTC)

func newClock() *clock { return &clock{t: epoch} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

var testBinding = Binding{Path: "/home/dana/brain", Name: "work"}

// openTest opens a queue in a new folder with a test clock.
func openTest(t *testing.T, o Options) (*Queue, *clock, string) {
	t.Helper()
	c := newClock()
	if o.Now == nil {
		o.Now = c.Now
	}
	dir := testDir(t)
	q, err := Open(dir, testBinding, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q, c, dir
}

var (
	idem    = Send{Command: []string{"chat", "send", "home"}, Idempotent: true}
	nonIdem = Send{Command: []string{"desktop", "send"}}
)

func mustAdmit(t *testing.T, q *Queue, d NewDelivery) Item {
	t.Helper()
	it, _, err := q.AdmitDelivery(d)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func mustBegin(t *testing.T, q *Queue, id string, s Send) *Attempt {
	t.Helper()
	a, err := q.BeginAttempt(id, &s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func mustGet(t *testing.T, q *Queue, id string) Detail {
	t.Helper()
	d, err := q.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// errText is the error's message, or "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkErr fails unless err matches kind and reads want exactly.
func checkErr(t *testing.T, err error, kind error, want string) {
	t.Helper()
	if !errors.Is(err, kind) || errText(err) != want {
		t.Fatalf("error = %v (kind match %v), want %q", err, errors.Is(err, kind), want)
	}
}

// view is the part of an Item transition tests compare.
type view struct {
	State       State
	Error       string
	Attempts    int
	NextAttempt time.Time
}

func viewOf(it Item) view {
	return view{State: it.State, Error: it.Error, Attempts: it.Attempts, NextAttempt: it.NextAttempt}
}

func mustItem(t *testing.T, q *Queue, id string) Item {
	t.Helper()
	return mustGet(t, q, id).Item
}

var helperConfig = []byte(`{"command":["harness"],"prompt":"prompts/helper.md"}`)

// newJob is a message job of assistant helper answering conversation t-ID on channel chat.
func newJob(id string, route Send) NewJob {
	return NewJob{ID: id, Assistant: "helper", Kind: "message", Channel: "chat", Conversation: "t-" + id,
		Input: []byte("What needs my attention?"), Config: helperConfig, MaxBytes: 1 << 20,
		Routes: []Route{{Channel: "chat", Conversation: "t-" + id, ReplyTo: "m-" + id, Send: route}}}
}

func configFor(route Send) JobConfig {
	return JobConfig{Assistant: helperConfig, Channels: map[string]Send{"chat": route}}
}

// answered admits, starts and answers job id and returns its delivery's ID.
func answered(t *testing.T, q *Queue, id string, route Send) string {
	t.Helper()
	if _, _, err := q.AdmitJob(newJob(id, route)); err != nil {
		t.Fatal(err)
	}
	r, err := q.StartJob(id, configFor(route))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Answer([]byte("Two reviews are due.")); err != nil {
		t.Fatal(err)
	}
	return id + ".1"
}

// deadPID is the PID of a process that exited and was reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = childEnv()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// orphan makes the running attempt of work look like one whose process was killed.
func orphan(t *testing.T, q *Queue, work string) {
	t.Helper()
	pid := deadPID(t)
	err := q.write("test", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE leases SET pid = ?, start = 1 WHERE work = ?", pid, work)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("no lease for %s", work)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testDir is a new folder for a queue, in memory when the machine offers it: what tests
// observe does not depend on syncs reaching a disk, and they are much faster without.
func testDir(t *testing.T) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "bf-queue-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// childEnv is the environment of a re-executed test binary. A race-enabled child would
// otherwise wait a second before exiting.
func childEnv() []string {
	return append(os.Environ(), "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
}

// hotJournal reports a journal SQLite will roll back: present, with a header (its first
// bytes are not zero).
func hotJournal(t *testing.T, file string) bool {
	if st, err := os.Stat(strings.TrimSuffix(file, "-journal")); err != nil || st.Size() == 0 {
		return false // nothing to roll back in an empty database
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(data) >= 8 && !bytes.Equal(data[:8], make([]byte, 8))
}

func fileExists(file string) bool {
	_, err := os.Lstat(file)
	return err == nil
}
