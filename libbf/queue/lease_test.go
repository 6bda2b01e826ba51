package queue

import (
	"os"
	"os/exec"
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
