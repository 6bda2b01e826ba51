package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/record"
	"github.com/google/go-cmp/cmp"
)

// A re-executed test binary with these variables set runs one task and SIGKILLs itself at
// the given step.
const (
	envRoot = "BF_STORE_TEST_CRASH_ROOT"
	envTask = "BF_STORE_TEST_CRASH_TASK" // commit or recover
	envStep = "BF_STORE_TEST_CRASH_STEP" // 1-based
	envCopy = "BF_STORE_TEST_CRASH_COPY" // 1: backups take the copy path
)

func TestMain(m *testing.M) {
	if root := os.Getenv(envRoot); root != "" {
		os.Exit(crashChild(root))
	}
	os.Exit(m.Run())
}

// crashChild runs the task and dies at the step; it returns only when the task ended first.
func crashChild(root string) int {
	k, _ := strconv.Atoi(os.Getenv(envStep))
	if os.Getenv(envCopy) == "1" {
		link = refuseLinks
	}
	n := 0
	crashPoint = func(s string) error {
		if n++; n == k {
			os.Stdout.WriteString(s + "\n")
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute) // the signal is on its way
		}
		return nil
	}
	var err error
	switch task := os.Getenv(envTask); task {
	case "commit":
		recs, opt := crashBatch()
		_, err = Commit(context.Background(), root, "mail", recs, opt)
	case "recover":
		err = Recover(context.Background(), root)
	default:
		err = fmt.Errorf("unknown task %q", task)
	}
	fmt.Printf("finished after %d steps: %v\n", n, err)
	return 3
}

func refuseLinks(o, n string) error {
	return &os.LinkError{Op: "link", Old: o, New: n, Err: syscall.EXDEV}
}

// crashBrain is the brain before the commit: 18 records in memories/mail, a stray file
// there, and another source.
func crashBrain() map[string]string {
	files := map[string]string{
		"memories/mail/notes.txt":       "mine",
		"memories/other/" + fn("x"):     stored("x", "X"),
		"bf.yaml":                       "version: 8\nname: crash\n",
		"memories/mail/.write-" + hex32: "left by an earlier crash",
	}
	for i := range 18 {
		id := fmt.Sprintf("r%02d", i)
		files["memories/mail/"+fn(id)] = stored(id, "R "+id, "updated", t1, "observed", t1)
	}
	return files
}

// crashBatch is a snapshot that updates 9 records, keeps 3, removes 6 and adds 9.
func crashBatch() ([]record.Record, Options) {
	var recs []record.Record
	for i := range 12 {
		id := fmt.Sprintf("r%02d", i)
		title := "R " + id
		if i < 9 {
			title += " revised"
		}
		recs = append(recs, rec(id, title, "updated", t1))
	}
	for i := range 9 {
		id := fmt.Sprintf("n%02d", i)
		recs = append(recs, rec(id, "N "+id, "updated", t2))
	}
	return recs, Options{Mode: config.ModeSnapshot, Observed: observedAt, Wait: DefaultWait}
}

// runChild runs the task in a new process that must die by SIGKILL at step k, and returns
// the step it reported.
func runChild(t *testing.T, root, task string, k int, copyBackups bool) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRoot+"="+root, envTask+"="+task, envStep+"="+strconv.Itoa(k))
	if copyBackups {
		cmd.Env = append(cmd.Env, envCopy+"=1")
	}
	out, err := cmd.Output()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("%s child was to be killed at step %d: %v, %q", task, k, err, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// record runs f in this process with a hook that lists the steps.
func recordSteps(f func()) []string {
	var steps []string
	crashPoint = func(s string) error { steps = append(steps, s); return nil }
	defer func() { crashPoint = nil }()
	f()
	return steps
}

// expectedStates returns the memories/ tree before and after the crash batch, and the steps
// of its commit.
func expectedStates(t *testing.T, copyBackups bool) (before, after map[string]string, steps []string) {
	t.Helper()
	root := t.TempDir()
	writeTree(t, root, crashBrain())
	before = tree(t, filepath.Join(root, "memories"))
	delete(before, "mail/.write-"+hex32) // every writer sweeps it, so no outcome keeps it
	if copyBackups {
		link = refuseLinks
		defer func() { link = os.Link }()
	}
	recs, opt := crashBatch()
	steps = recordSteps(func() {
		got, err := Commit(context.Background(), root, "mail", recs, opt)
		if want := (Counts{Added: 9, Updated: 9, Unchanged: 3, Removed: 6}); err != nil || got != want {
			t.Fatalf("Commit = %+v, %v; want %+v", got, err, want)
		}
	})
	after = tree(t, filepath.Join(root, "memories"))
	if cmp.Equal(before, after) {
		t.Fatal("the batch changes nothing")
	}
	return before, after, steps
}

// checkRecovered recovers the brain killed at a step, expecting the tree want, and checks
// that recovering again changes nothing.
func checkRecovered(t *testing.T, root string, want map[string]string) {
	t.Helper()
	mem := filepath.Join(root, "memories")
	if err := Recover(context.Background(), root); err != nil {
		t.Fatalf("Recover = %v", err)
	}
	if diff := cmp.Diff(want, tree(t, mem)); diff != "" {
		t.Fatalf("memories after recovery (-want +got):\n%s", diff)
	}
	nodes := inodes(t, mem)
	if err := Recover(context.Background(), root); err != nil {
		t.Fatalf("second Recover = %v", err)
	}
	if diff := cmp.Diff(nodes, inodes(t, mem)); diff != "" {
		t.Fatalf("second Recover changed files (-before +after):\n%s", diff)
	}
}

// TestKilledCommit kills a real process at every step of a commit (hard-linked backups,
// then copied ones) and checks that recovery leaves exactly the old or the new records.
func TestKilledCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per step")
	}
	for _, copyBackups := range []bool{false, true} {
		before, after, steps := expectedStates(t, copyBackups)
		if len(steps) < 50 {
			t.Fatalf("only %d kill points: %v", len(steps), steps)
		}
		manifestAt := slices.Index(steps, "manifest written")
		completeAt := slices.Index(steps, "complete")
		if manifestAt < 0 || completeAt < manifestAt {
			t.Fatalf("steps out of order: %v", steps)
		}
		variant := "linked"
		if copyBackups {
			variant = "copied"
		}
		for i, s := range steps {
			t.Run(fmt.Sprintf("%s/%02d %s", variant, i+1, s), func(t *testing.T) {
				t.Parallel()
				root := t.TempDir()
				writeTree(t, root, crashBrain())
				if got := runChild(t, root, "commit", i+1, copyBackups); got != s {
					t.Fatalf("killed at %q, want %q", got, s)
				}
				bad, err := Interrupted(root)
				if want := i >= manifestAt && i < completeAt; bad != want || err != nil {
					t.Errorf("Interrupted = %v, %v; want %v", bad, err, want)
				}
				want := before
				if i >= completeAt {
					want = after
				}
				checkRecovered(t, root, want)
			})
		}
	}
}

// TestKilledRecovery kills a commit once every change is made but before it completes,
// then kills the recovery at each of its steps: the next recovery still restores the old
// records.
func TestKilledRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per step")
	}
	before, _, commitSteps := expectedStates(t, false)
	synced := slices.Index(commitSteps, "source synced") + 1
	root := t.TempDir()
	writeTree(t, root, crashBrain())
	runChild(t, root, "commit", synced, false)
	var err error
	steps := recordSteps(func() { err = Recover(context.Background(), root) })
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, tree(t, filepath.Join(root, "memories"))); diff != "" {
		t.Fatalf("recovery (-want +got):\n%s", diff)
	}
	if len(steps) < 30 {
		t.Fatalf("only %d kill points: %v", len(steps), steps)
	}
	recoveredAt := slices.Index(steps, "recovered")
	for i, s := range steps {
		t.Run(fmt.Sprintf("%02d %s", i+1, s), func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeTree(t, root, crashBrain())
			runChild(t, root, "commit", synced, false)
			if got := runChild(t, root, "recover", i+1, false); got != s {
				t.Fatalf("killed at %q, want %q", got, s)
			}
			bad, err := Interrupted(root)
			if want := i < recoveredAt; bad != want || err != nil {
				t.Errorf("Interrupted = %v, %v; want %v", bad, err, want)
			}
			checkRecovered(t, root, before)
		})
	}
}

// TestFailedStep fails each step of a commit in process: before the manifest is complete
// the commit fails and rolls itself back at once; after, it succeeds.
func TestFailedStep(t *testing.T) {
	before, after, steps := expectedStates(t, false)
	completeAt := slices.Index(steps, "complete")
	injected := errors.New("injected failure")
	recs, opt := crashBatch()
	for i, s := range steps {
		t.Run(fmt.Sprintf("%02d %s", i+1, s), func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, crashBrain())
			n := 0
			crashPoint = func(string) error {
				if n++; n == i+1 {
					return injected
				}
				return nil
			}
			got, err := Commit(context.Background(), root, "mail", recs, opt)
			crashPoint = nil
			mem := filepath.Join(root, "memories")
			if i < completeAt {
				if !errors.Is(err, injected) || got != (Counts{}) {
					t.Fatalf("Commit = %+v, %v; want the injected failure", got, err)
				}
				if diff := cmp.Diff(before, tree(t, mem)); diff != "" {
					t.Fatalf("not rolled back (-want +got):\n%s", diff)
				}
				return
			}
			if want := (Counts{Added: 9, Updated: 9, Unchanged: 3, Removed: 6}); err != nil || got != want {
				t.Fatalf("Commit = %+v, %v; want %+v", got, err, want)
			}
			if bad, err := Interrupted(root); bad || err != nil {
				t.Errorf("Interrupted = %v, %v after a committed transaction", bad, err)
			}
			checkRecovered(t, root, after)
		})
	}
}
