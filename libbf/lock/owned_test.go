package lock

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ghostHold is how long the child of a dead holder keeps its copy of the lock.
const ghostHold = time.Second

// TestAcquireOwnedAfterHolderDied is a holder that dies while a child it started still has
// the lock's descriptor, as a bf watch killed while it forks a harness: the lock outlives
// the holder until the child lets it go, and AcquireOwned waits for that instead of
// reporting a holder that is gone.
func TestAcquireOwnedAfterHolderDied(t *testing.T) {
	if dir := os.Getenv("BF_LOCK_TEST_HOLDER"); dir != "" {
		l, err := AcquireOwned(context.Background(), dir, "x.lock")
		if err != nil {
			t.Fatal(err)
		}
		// The child gets the descriptor on purpose, standing in for one that is forked
		// and has not yet executed its program.
		child := exec.Command("sleep", strconv.FormatFloat(ghostHold.Seconds(), 'f', -1, 64))
		child.ExtraFiles = []*os.File{l.f}
		if err := child.Start(); err != nil {
			t.Fatal(err)
		}
		os.Exit(0) // dies holding the lock, never releasing it
	}
	dir := t.TempDir()
	holder := exec.Command(os.Args[0], "-test.run=^TestAcquireOwnedAfterHolderDied$")
	holder.Env = append(os.Environ(), "BF_LOCK_TEST_HOLDER="+dir)
	if out, err := holder.CombinedOutput(); err != nil {
		t.Fatalf("holder: %v\n%s", err, out)
	}
	died := time.Now()
	// The holder has been reaped, yet its lock is still held.
	if l, err := Acquire(context.Background(), dir, "x.lock", true, 0); !errors.Is(err, ErrBusy) {
		l.Release()
		t.Fatalf("Acquire after the holder died = %v, want ErrBusy while its child holds the lock", err)
	}
	l, err := AcquireOwned(context.Background(), dir, "x.lock")
	if err != nil {
		t.Fatalf("AcquireOwned after the holder died: %v", err)
	}
	defer l.Release()
	if waited := time.Since(died); waited > exitedWait {
		t.Errorf("AcquireOwned took %s", waited)
	}
	data, _ := os.ReadFile(l.f.Name())
	if got, want := strings.TrimSpace(string(data)), strconv.Itoa(os.Getpid()); got != want {
		t.Errorf("the lock records holder %q, want %q", got, want)
	}
}

// TestAcquireOwnedBusy: a live holder, or one that recorded nothing, fails at once.
func TestAcquireOwnedBusy(t *testing.T) {
	tests := []struct {
		name string
		take func(dir string) (*Lock, error)
	}{
		{"a live holder", func(dir string) (*Lock, error) { return AcquireOwned(context.Background(), dir, "x.lock") }},
		{"a holder that recorded nothing", func(dir string) (*Lock, error) { return Acquire(context.Background(), dir, "x.lock", true, 0) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			held, err := tt.take(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release()
			start := time.Now()
			l, err := AcquireOwned(context.Background(), dir, "x.lock")
			if !errors.Is(err, ErrBusy) {
				l.Release()
				t.Fatalf("AcquireOwned = %v, want ErrBusy", err)
			}
			if waited := time.Since(start); waited > exitedWait/2 {
				t.Errorf("AcquireOwned waited %s for a live holder", waited)
			}
		})
	}
}
