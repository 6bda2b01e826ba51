package queue

import (
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// TestOwnerAlive: an attempt's owner counts as dead only when this machine can tell.
func TestOwnerAlive(t *testing.T) {
	me := self()
	if me.PID != os.Getpid() || me.Host == "" {
		t.Fatalf("self = %+v", me)
	}
	// A child that is still running.
	sleeper := exec.Command(os.Args[0], "-test.run=^TestHelperSleep$")
	sleeper.Env = append(childEnv(), "BF_QUEUE_TEST_SLEEP=1")
	stdin, _ := sleeper.StdinPipe()
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); sleeper.Wait() }()
	liveStart, _, _ := processStart(sleeper.Process.Pid)
	dead := deadPID(t)

	tests := []struct {
		name  string
		o     owner
		alive bool
	}{
		{"this process", me, true},
		{"a live child", owner{Host: me.Host, Boot: me.Boot, PID: sleeper.Process.Pid, Start: liveStart}, true},
		{"a reaped child", owner{Host: me.Host, Boot: me.Boot, PID: dead, Start: 1}, false},
		{"another machine", owner{Host: me.Host + "-other", Boot: "x", PID: dead, Start: 1}, true},
		{"no PID", owner{Host: me.Host, Boot: me.Boot}, false},
	}
	if me.Boot != "" {
		tests = append(tests, struct {
			name  string
			o     owner
			alive bool
		}{"an earlier boot", owner{Host: me.Host, Boot: me.Boot + "-before", PID: me.PID, Start: me.Start}, false})
	}
	if me.Start != 0 {
		tests = append(tests, struct {
			name  string
			o     owner
			alive bool
		}{"a reused PID", owner{Host: me.Host, Boot: me.Boot, PID: sleeper.Process.Pid, Start: liveStart + 1}, false})
	}
	for _, tt := range tests {
		if got := tt.o.alive(); got != tt.alive {
			t.Errorf("%s: alive = %v, want %v", tt.name, got, tt.alive)
		}
	}
}

// TestHelperSleep is the live child of TestOwnerAlive: it waits until its stdin closes.
func TestHelperSleep(t *testing.T) {
	if os.Getenv("BF_QUEUE_TEST_SLEEP") == "" {
		t.Skip("helper process")
	}
	buf := make([]byte, 1)
	os.Stdin.Read(buf)
}

// TestOrphanedGroup: an attempt whose owner died while the process group it recorded
// lives on counts as running, for retry, cancel and recovery alike, until the group ends.
func TestOrphanedGroup(t *testing.T) {
	q, _, _ := openTest(t, Options{})
	mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "x", Send: idem})
	a := mustBegin(t, q, "d", idem)
	child := exec.Command(os.Args[0], "-test.run=^TestHelperSleep$")
	child.Env = append(childEnv(), "BF_QUEUE_TEST_SLEEP=1")
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := child.StdinPipe()
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	a.Started(child.Process.Pid)
	orphan(t, q, "d")

	pgid := child.Process.Pid
	want := fmt.Sprintf("%s; its program still runs as process group %d after its bf process ended: let it finish, or stop it with kill -- -%d", msgDeliverySending, pgid, pgid)
	_, err := q.Retry("d")
	checkErr(t, err, ErrInFlight, want)
	_, err = q.Cancel("d")
	checkErr(t, err, ErrInFlight, want)
	if n, err := q.Recover(); err != nil || n != 0 {
		t.Fatalf("Recover while the group runs = %d, %v; want 0", n, err)
	}

	stdin.Close()
	child.Wait()
	if n, err := q.Recover(); err != nil || n != 1 {
		t.Fatalf("Recover once the group ended = %d, %v; want 1", n, err)
	}
	if it := mustGet(t, q, "d"); it.State != Failed {
		t.Fatalf("after recovery: %s, want failed", it.State)
	}
	var left int
	q.read(func(tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT count(*) FROM meta WHERE key LIKE 'group:%'").Scan(&left)
	})
	if left != 0 {
		t.Fatalf("%d group records left after recovery", left)
	}
}
