package cache

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// syncCounts counts the syncs answered fresh and not fresh, and the keeper's comparisons.
type syncCounts struct{ fresh, notFresh, compares atomic.Int64 }

// reset sets every count to zero.
func (n *syncCounts) reset() { n.fresh.Store(0); n.notFresh.Store(0); n.compares.Store(0) }

// countSyncs counts from now on; call it before startKeeper (the hooks are not changed
// while a keeper runs), then reset.
func countSyncs(t *testing.T) *syncCounts {
	t.Helper()
	n := &syncCounts{}
	onSync = func(fresh bool) {
		if fresh {
			n.fresh.Add(1)
		} else {
			n.notFresh.Add(1)
		}
	}
	onKeeperCompare = func() { n.compares.Add(1) }
	t.Cleanup(func() { onSync, onKeeperCompare = nil, nil })
	return n
}

// startKeeper runs Keep over the fixture until the test ends. Its settle time is an hour,
// so a change is compared only when a sync asks for it.
func startKeeper(t *testing.T, f *fixture) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Keep(ctx, f.brain(), KeepOptions{Settle: time.Hour}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Keep: %v", err)
		}
	})
	dir := f.path(Dir)
	for range 500 {
		if _, fresh := startSync(context.Background(), dir, signature(f.brain())).wait(); fresh {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("Keep stopped: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the keeper never answered fresh")
}

// TestKeeperSeesChanges makes each change right before an Open while a keeper runs: the
// Open does not list the brain, yet serves exactly what a listing would.
func TestKeeperSeesChanges(t *testing.T) {
	for _, tt := range refreshCases {
		t.Run(tt.name, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			n := countSyncs(t)
			startKeeper(t, f)
			n.reset()
			tt.change(f)
			c := f.open()
			checkRefreshed(t, c, tt)
			if n.fresh.Load() != 1 || n.notFresh.Load() != 0 {
				t.Errorf("syncs fresh %d, not fresh %d; want 1 fresh", n.fresh.Load(), n.notFresh.Load())
			}
			if n.compares.Load() != 1 {
				t.Errorf("the keeper compared %d times, want once", n.compares.Load())
			}
			// Nothing changed since: the next sync answers without comparing.
			c.Close()
			f.open()
			if n.fresh.Load() != 2 || n.compares.Load() != 1 {
				t.Errorf("after no change: syncs fresh %d, compares %d; want 2 and 1", n.fresh.Load(), n.compares.Load())
			}
		})
	}
}

// TestKeeperNewFolders watches folders created while it runs: a note written into a new
// folder after the keeper compared is still seen.
func TestKeeperNewFolders(t *testing.T) {
	f := smallBrain(t)
	f.build()
	n := countSyncs(t)
	startKeeper(t, f)
	n.reset()
	f.write("projects/new/deeper/one.md", "# One\n")
	f.open().Close()
	f.write("projects/new/deeper/two.md", "# Two\n")
	f.write("memories/mail/sub/ignored.json", "{}")
	c := f.open()
	got := refs(t, c)
	for _, want := range []string{"projects/new/deeper/one.md", "projects/new/deeper/two.md"} {
		if !slices.Contains(got, want) {
			t.Errorf("refs lack %s: %v", want, got)
		}
	}
	if n.fresh.Load() != 2 || n.compares.Load() != 2 {
		t.Errorf("syncs fresh %d, compares %d; want 2 and 2", n.fresh.Load(), n.compares.Load())
	}
}

// TestKeeperOverflow: when notifications overflow, the waiting Open lists the brain
// itself; the keeper watches again and the next Open is answered fresh.
func TestKeeperOverflow(t *testing.T) {
	f := smallBrain(t)
	f.build()
	n := countSyncs(t)
	var armed atomic.Bool
	onNotices = func(b []notice) []notice {
		cookie := false
		for _, e := range b {
			cookie = cookie || strings.HasPrefix(e.name, cookiePrefix) && e.mask&unix.IN_CREATE != 0
		}
		if cookie && armed.CompareAndSwap(true, false) {
			return append([]notice{{wd: -1, mask: unix.IN_Q_OVERFLOW}}, b...)
		}
		return b
	}
	t.Cleanup(func() { onNotices = nil })
	startKeeper(t, f)
	n.reset()
	armed.Store(true)
	tt := refreshCases[0]
	tt.change(f)
	c := f.open()
	checkRefreshed(t, c, tt)
	c.Close()
	if n.fresh.Load() != 0 || n.notFresh.Load() != 1 {
		t.Errorf("syncs fresh %d, not fresh %d; want the overflowed one not fresh", n.fresh.Load(), n.notFresh.Load())
	}
	f.write("concepts/site.md", "# Site again\n")
	c = f.open()
	if got := titleOf(t, c, "concepts/site.md"); got != "Site again" {
		t.Errorf("title after the overflow = %q", got)
	}
	if n.fresh.Load() != 1 {
		t.Errorf("syncs fresh %d after the overflow, want 1", n.fresh.Load())
	}
}

// TestKeeperOtherWriter: a process that refreshes the cache itself marks it, so the keeper
// compares again before its next answer.
func TestKeeperOtherWriter(t *testing.T) {
	f := smallBrain(t)
	f.build()
	n := countSyncs(t)
	startKeeper(t, f)
	n.reset()
	markRefresh(f.path(Dir))
	f.open().Close()
	if n.fresh.Load() != 1 || n.compares.Load() != 1 {
		t.Errorf("syncs fresh %d, compares %d; want 1 and 1", n.fresh.Load(), n.compares.Load())
	}
	// A build replaces the generation: compared again too.
	f.build()
	f.open().Close()
	if n.fresh.Load() != 2 || n.compares.Load() != 2 {
		t.Errorf("after a build: syncs fresh %d, compares %d; want 2 and 2", n.fresh.Load(), n.compares.Load())
	}
}

// TestKeeperGone: a keeper that stopped, was killed (its socket left behind) or hangs
// leaves every Open to list the brain, with the same answer.
func TestKeeperGone(t *testing.T) {
	old := syncWait
	syncWait = 100 * time.Millisecond
	t.Cleanup(func() { syncWait = old })
	for _, tt := range []struct {
		name  string
		start func(t *testing.T, sock string)
	}{
		{"stopped", func(t *testing.T, sock string) {}},
		{"killed", func(t *testing.T, sock string) {
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close()
		}},
		{"hung", func(t *testing.T, sock string) {
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					t.Cleanup(func() { c.Close() }) // reads nothing, answers nothing
				}
			}()
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			tt.start(t, f.path(filepath.Join(Dir, KeeperSocket)))
			n := countSyncs(t)
			c := refreshCases[0]
			c.change(f)
			checkRefreshed(t, f.open(), c)
			if n.fresh.Load() != 0 {
				t.Errorf("%d syncs answered fresh without a keeper", n.fresh.Load())
			}
		})
	}
}

// TestKeeperOne: a second keeper of the same brain stops with ErrKept; after bf.yaml
// changed, the Open rebuilds and the keeper, having read bf.yaml again, answers fresh.
func TestKeeperOne(t *testing.T) {
	f := smallBrain(t)
	f.build()
	n := countSyncs(t)
	startKeeper(t, f)
	if err := Keep(context.Background(), f.brain(), KeepOptions{}); !errors.Is(err, ErrKept) {
		t.Fatalf("second Keep = %v, want ErrKept", err)
	}
	if _, err := os.Stat(f.path(filepath.Join(Dir, KeeperSocket))); err != nil {
		t.Fatalf("the first keeper's socket is gone: %v", err)
	}
	n.reset()
	f.write("bf.yaml", testConfig+"  team:\n    description: A team.\n    type: string\n")
	c := f.open() // another signature: this Open rebuilds, then syncs
	if diff := cmp.Diff(6, len(refs(t, c))); diff != "" {
		t.Errorf("refs count (-want +got):\n%s", diff)
	}
	c.Close()
	f.open().Close()
	if n.fresh.Load() != 2 || n.notFresh.Load() != 0 {
		t.Errorf("syncs fresh %d, not fresh %d; want 2 and 0 (the keeper signs with the new bf.yaml)", n.fresh.Load(), n.notFresh.Load())
	}
}

// TestSyncStop: an Open that finds its generation unusable abandons the sync it started;
// stop returns at once even when the keeper never answers (syncWait is an hour here: a
// stop that waited for it would hang the test).
func TestSyncStop(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, KeeperSocket)
	if len(sock) > maxSocketPath {
		t.Skip("temporary folder too deep for a socket")
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if conn, err := ln.Accept(); err == nil {
			accepted <- conn // read nothing, answer nothing
		}
	}()
	was := syncWait
	syncWait = time.Hour
	t.Cleanup(func() { syncWait = was })
	p := startSync(context.Background(), dir, "sig")
	if p == nil {
		t.Fatal("no sync started with a socket present")
	}
	conn := <-accepted
	defer conn.Close()
	p.stop()
	if p.fresh {
		t.Error("an abandoned sync answered fresh")
	}
	if p := startSync(context.Background(), t.TempDir(), "sig"); p != nil {
		t.Error("a sync started without a socket")
	}
	if listed, fresh := (*pendingSyncReply)(nil).wait(); fresh || listed != nil {
		t.Error("no sync is fresh")
	}
}
