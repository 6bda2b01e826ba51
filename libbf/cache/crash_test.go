package cache

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/google/go-cmp/cmp"
)

// crashEnv names the brain a re-executed test binary builds, stopping mid-fill.
const crashEnv = "BF_CACHE_TEST_CRASH_BUILD"

func TestMain(m *testing.M) {
	if root := os.Getenv(crashEnv); root != "" {
		crashingBuild(root)
		return
	}
	os.Exit(m.Run())
}

// crashingBuild runs a build that announces when it is filling and then waits to be killed.
func crashingBuild(root string) {
	b, err := brain.Open(root)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	_, err = Build(context.Background(), b, func(done, total int) {
		if done == total/2 {
			fmt.Println("filling")
			time.Sleep(time.Minute)
		}
	})
	fmt.Println("finished:", err)
	os.Exit(1)
}

func TestKilledBuildProcess(t *testing.T) {
	f := smallBrain(t)
	f.build()
	for i := range 100 {
		f.writeRecord("mail", fmt.Sprintf("bulk-%d", i), `"title":"Bulk"`)
	}
	// A record whose term counts the cache keeps (heavy.go).
	f.writeRecord("mail", "bulk-heavy", `"title":"Bulk","text":"`+strings.Repeat("bulk ", 14000)+`"`)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+f.Root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "filling" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child said %q", line)
	}
	if _, err := os.Stat(f.path(".bf/index.sqlite.new")); err != nil {
		t.Errorf("no .new file while filling: %v", err)
	}
	if _, err := os.Stat(f.path(".bf/index.sqlite.new-tables")); err != nil {
		t.Errorf("no sidecar file while filling: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()

	// The previous generation still answers, refreshed incrementally.
	c := f.open()
	if c.Status.Stale {
		t.Error("stale after the writer died")
	}
	if got := len(refs(t, c)); got != 107 {
		t.Errorf("items = %d, want 107", got)
	}
	wantHeavy := []string{"mail:bulk-heavy# bulk 0 1", "mail:bulk-heavy# bulk 1 14000", "mail:bulk-heavy# mail 2 1"}
	if diff := cmp.Diff(wantHeavy, heavyRows(t, c)); diff != "" {
		t.Errorf("term counts after the crash (-want +got):\n%s", diff)
	}
	c.Close()
	res := f.build()
	if res.Files != 107 || res.Changed != 0 {
		t.Errorf("build after the crash = %+v", res)
	}
	c = f.open()
	if diff := cmp.Diff(wantHeavy, heavyRows(t, c)); diff != "" {
		t.Errorf("term counts after the next build (-want +got):\n%s", diff)
	}
	c.Close()
	if _, err := os.Stat(f.path(".bf/index.sqlite.new")); !os.IsNotExist(err) {
		t.Error(".new survived the next build")
	}
	if _, err := os.Stat(f.path(".bf/index.sqlite.new-tables")); !os.IsNotExist(err) {
		t.Error("the sidecar file survived the next build")
	}
}
