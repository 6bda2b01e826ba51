package cache

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestYieldToBuild(t *testing.T) {
	tests := []struct {
		name      string
		yield     bool // the reader asks to yield
		building  bool // a build holds the build lock
		wantLower bool
	}{
		{"a yielding reader amid a build", true, true, true},
		{"a yielding reader alone", true, false, false},
		{"a server amid a build", false, true, false},
		{"a server alone", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			lowered := 0
			lowerPriority, setPriority = sync.Once{}, func() { lowered++ }
			t.Cleanup(func() { lowerPriority, setPriority = sync.Once{}, setLowPriority })
			ctx := context.Background()
			if tt.building {
				l, err := acquire(ctx, dir, buildLockFile, true, 0)
				if err != nil {
					t.Fatal(err)
				}
				defer l.release()
			}
			if tt.yield {
				ctx = YieldToBuilds(ctx)
			}
			yieldToBuild(ctx, dir)
			yieldToBuild(ctx, dir) // a second open in the process lowers nothing more
			want := 0
			if tt.wantLower {
				want = 1
			}
			if lowered != want {
				t.Errorf("priority lowered %d times, want %d", lowered, want)
			}
			if !tt.building {
				// The probe never keeps the lock: a build can take it at once.
				l, err := acquire(context.Background(), dir, buildLockFile, true, 0)
				if err != nil {
					t.Fatalf("the build lock after the probe: %v", err)
				}
				l.release()
			}
		})
	}
}

// TestSetLowPriorityEveryThread lowers the priority of a child process running many
// threads and reads every thread's nice value back from /proc.
func TestSetLowPriorityEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/task")
	}
	if os.Getenv("BF_TEST_LOW_PRIORITY") == "1" {
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for range 8 { // threads that exist before the call
			wg.Go(func() {
				runtime.LockOSThread()
				<-stop
			})
		}
		setLowPriority()
		for range 4 { // threads created after it
			wg.Go(func() {
				runtime.LockOSThread()
				<-stop
			})
		}
		seen := map[string]int{}
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, task := range tasks {
			stat, err := os.ReadFile(filepath.Join("/proc/self/task", task.Name(), "stat"))
			if err != nil {
				continue
			}
			// Field 19 is the nice value; fields count from after the command's ")".
			f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
			seen[f[16]]++
		}
		close(stop)
		wg.Wait()
		fmt.Printf("nice values: %v\n", seen)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetLowPriorityEveryThread$")
	cmd.Env = append(os.Environ(), "BF_TEST_LOW_PRIORITY=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	line := ""
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "nice values: ") {
			line = l
		}
	}
	if want := fmt.Sprintf("nice values: map[%d:", lowestPriority); !strings.HasPrefix(line, want) || strings.Count(line, ":") != 2 {
		t.Errorf("child threads: %q, want every thread at nice %d\n%s", line, lowestPriority, out)
	}
}
