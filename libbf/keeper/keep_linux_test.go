package keeper

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/internal/keepsync"
	"github.com/bfgo/bf/libbf/record"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// fixture is a brain written by a test, with its cache.
type fixture struct{ *brainfix.Brain }

// smallBrain holds five notes and one record.
func smallBrain(t *testing.T) *fixture {
	f := &fixture{brainfix.New(t, brainfix.Spec{Notes: map[string]string{
		"projects/atlas.md":                        "# Atlas\n\nLaunch the [site](../concepts/site.md).\n",
		"concepts/site.md":                         "# Site\n\nSee [mail](mail:m-1).\n",
		"concepts/index.md":                        "# Concepts\n",
		"actions/2026-09-21_review/ACTION.md":      "---\nstatus: draft\n---\n# Review\n\n- [ ] Read it\n",
		"actions/2026-09-21_review/inputs/note.md": "# Input\n",
	}})}
	f.Record("mail", "m-1", `"title":"Storage review"`)
	return f
}

func (f *fixture) path(p string) string { return filepath.Join(f.Root, filepath.FromSlash(p)) }

func (f *fixture) remove(p string) {
	f.T.Helper()
	if err := os.RemoveAll(f.path(p)); err != nil {
		f.T.Fatal(err)
	}
}

func (f *fixture) brain() *brain.Brain { f.T.Helper(); return f.Open() }

func (f *fixture) open() *cache.Cache {
	f.T.Helper()
	c, err := cache.Open(context.Background(), f.brain())
	if err != nil {
		f.T.Fatalf("Open: %v", err)
	}
	f.T.Cleanup(func() { c.Close() })
	return c
}

func (f *fixture) build() {
	f.T.Helper()
	if _, err := cache.Build(context.Background(), f.brain(), nil); err != nil {
		f.T.Fatalf("Build: %v", err)
	}
}

// column lists one column of a query's rows.
func column(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rs, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var v string
		if err := rs.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// refs lists the item refs of a cache.
func refs(t *testing.T, c *cache.Cache) []string {
	t.Helper()
	return column(t, c.DB(), `SELECT ref FROM items ORDER BY ref`)
}

func titleOf(t *testing.T, c *cache.Cache, ref string) string {
	t.Helper()
	if r := column(t, c.DB(), `SELECT title FROM items WHERE ref = ?`, ref); len(r) > 0 {
		return r[0]
	}
	return ""
}

// served is what a cache serves: each item's ref, title and file.
func served(t *testing.T, c *cache.Cache) []string {
	t.Helper()
	return column(t, c.DB(), `SELECT ref || ' | ' || title || ' | ' || path FROM items ORDER BY ref`)
}

// listed is what a cache built from a copy of the brain serves, where no keeper runs.
func listed(t *testing.T, f *fixture) []string {
	t.Helper()
	b, err := brain.Open(brainfix.Copy(t, f.Root, false))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cache.Build(context.Background(), b, nil); err != nil {
		t.Fatalf("Build of the copy: %v", err)
	}
	c, err := cache.Open(context.Background(), b)
	if err != nil {
		t.Fatalf("Open of the copy: %v", err)
	}
	defer c.Close()
	return served(t, c)
}

// changes are made to smallBrain while a keeper runs.
var changes = []struct {
	name   string
	change func(f *fixture)
}{
	{"edited note", func(f *fixture) { f.Write("concepts/site.md", "# Site renamed\n\nLonger text now.\n") }},
	{"new record", func(f *fixture) { f.Record("mail", "m-2", `"title":"Second mail"`) }},
	{"new source", func(f *fixture) { f.Record("chat", "c-1", `"title":"Chat line"`) }},
	{"removed files", func(f *fixture) {
		f.remove("concepts/site.md")
		f.remove("memories/mail/" + record.FileName("m-1"))
	}},
	{"removed source", func(f *fixture) { f.remove("memories/mail") }},
	{"removed folder", func(f *fixture) { f.remove("actions") }},
}

// checkListed compares what c serves with what a listing of the brain serves.
func checkListed(t *testing.T, c *cache.Cache, f *fixture) {
	t.Helper()
	if diff := cmp.Diff(listed(t, f), served(t, c)); diff != "" {
		t.Errorf("served (-listed +kept):\n%s", diff)
	}
}

// syncCounts counts the syncs answered fresh and not fresh, and the keeper's comparisons.
type syncCounts struct{ fresh, notFresh, compares atomic.Int64 }

// reset sets every count to zero.
func (n *syncCounts) reset() { n.fresh.Store(0); n.notFresh.Store(0); n.compares.Store(0) }

// countSyncs counts from now on; call it before startKeeper (the hooks are not changed
// while a keeper runs), then reset.
func countSyncs(t *testing.T) *syncCounts {
	t.Helper()
	n := &syncCounts{}
	keepsync.OnSync = func(fresh bool) {
		if fresh {
			n.fresh.Add(1)
		} else {
			n.notFresh.Add(1)
		}
	}
	onKeeperCompare = func() { n.compares.Add(1) }
	t.Cleanup(func() { keepsync.OnSync, onKeeperCompare = nil, nil })
	return n
}

// startKeeper runs Keep over the fixture until the test ends. Its settle time is an hour,
// so a change is compared only when a sync asks for it.
func startKeeper(t *testing.T, f *fixture) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Keep(ctx, f.brain(), Options{Settle: time.Hour}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Keep: %v", err)
		}
	})
	dir := f.path(cache.Dir)
	for range 500 {
		if _, fresh := keepsync.Start(context.Background(), dir, cache.NewComparer(f.brain()).Signature()).Wait(); fresh {
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
	for _, tt := range changes {
		t.Run(tt.name, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			n := countSyncs(t)
			startKeeper(t, f)
			n.reset()
			tt.change(f)
			c := f.open()
			checkListed(t, c, f)
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
	f.Write("projects/new/deeper/one.md", "# One\n")
	f.open().Close()
	f.Write("projects/new/deeper/two.md", "# Two\n")
	f.Write("memories/mail/sub/ignored.json", "{}")
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
			cookie = cookie || strings.HasPrefix(e.name, keepsync.CookiePrefix) && e.mask&unix.IN_CREATE != 0
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
	changes[0].change(f)
	c := f.open()
	checkListed(t, c, f)
	c.Close()
	if n.fresh.Load() != 0 || n.notFresh.Load() != 1 {
		t.Errorf("syncs fresh %d, not fresh %d; want the overflowed one not fresh", n.fresh.Load(), n.notFresh.Load())
	}
	f.Write("concepts/site.md", "# Site again\n")
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
	keepsync.MarkRefresh(f.path(filepath.Join(cache.Dir, cache.WriterLockFile)))
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

// TestKeeperOne: a second keeper of the same brain stops with ErrKept; after bf.yaml
// changed, the Open rebuilds and the keeper, having read bf.yaml again, answers fresh.
func TestKeeperOne(t *testing.T) {
	f := smallBrain(t)
	f.build()
	n := countSyncs(t)
	startKeeper(t, f)
	if err := Keep(context.Background(), f.brain(), Options{}); !errors.Is(err, ErrKept) {
		t.Fatalf("second Keep = %v, want ErrKept", err)
	}
	if _, err := os.Stat(f.path(filepath.Join(cache.Dir, keepsync.Socket))); err != nil {
		t.Fatalf("the first keeper's socket is gone: %v", err)
	}
	n.reset()
	f.Write("bf.yaml", "version: 8\nname: work\nfields:\n  team:\n    description: A team.\n    type: string\n")
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
