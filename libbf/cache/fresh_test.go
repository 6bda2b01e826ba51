package cache

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/google/go-cmp/cmp"
)

// refs lists the item refs of a cache.
func refs(t *testing.T, c *Cache) []string {
	t.Helper()
	return rows(t, c.DB(), `SELECT ref FROM items ORDER BY ref`)
}

func titleOf(t *testing.T, c *Cache, ref string) string {
	t.Helper()
	r := rows(t, c.DB(), `SELECT title FROM items WHERE ref = ?`, ref)
	if len(r) == 0 {
		return ""
	}
	return r[0]
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Sys().(*syscall.Stat_t).Ino
}

// refreshCase is one change to smallBrain and the refs an Open then serves.
type refreshCase struct {
	name   string
	change func(f *fixture)
	want   []string
	title  [2]string // ref and its expected title
}

func TestOpenRefreshes(t *testing.T) {
	for _, tt := range refreshCases {
		t.Run(tt.name, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			live := f.path(".bf/index.sqlite")
			before := inode(t, live)
			tt.change(f)
			c := f.open()
			checkRefreshed(t, c, tt)
			if inode(t, live) != before {
				t.Errorf("the generation was rebuilt instead of refreshed")
			}
		})
	}
}

var refreshCases = []refreshCase{
	{
		name:   "edited note",
		change: func(f *fixture) { f.write("concepts/site.md", "# Site renamed\n\nLonger text now.\n") },
		want:   []string{"actions/2026-09-21_review/ACTION.md", "actions/2026-09-21_review/inputs/note.md", "concepts/index.md", "concepts/site.md", "mail:m-1", "projects/atlas.md"},
		title:  [2]string{"concepts/site.md", "Site renamed"},
	},
	{
		name:   "new record",
		change: func(f *fixture) { f.writeRecord("mail", "m-2", `"title":"Second mail"`) },
		want:   []string{"actions/2026-09-21_review/ACTION.md", "actions/2026-09-21_review/inputs/note.md", "concepts/index.md", "concepts/site.md", "mail:m-1", "mail:m-2", "projects/atlas.md"},
		title:  [2]string{"mail:m-2", "Second mail"},
	},
	{
		name:   "new source",
		change: func(f *fixture) { f.writeRecord("chat", "c-1", `"title":"Chat line"`) },
		want:   []string{"actions/2026-09-21_review/ACTION.md", "actions/2026-09-21_review/inputs/note.md", "chat:c-1", "concepts/index.md", "concepts/site.md", "mail:m-1", "projects/atlas.md"},
		title:  [2]string{"chat:c-1", "Chat line"},
	},
	{
		name: "removed files",
		change: func(f *fixture) {
			f.remove("concepts/site.md")
			f.remove(recordPath("mail", "m-1"))
		},
		want: []string{"actions/2026-09-21_review/ACTION.md", "actions/2026-09-21_review/inputs/note.md", "concepts/index.md", "projects/atlas.md"},
	},
	{
		name:   "removed source",
		change: func(f *fixture) { f.remove("memories/mail") },
		want:   []string{"actions/2026-09-21_review/ACTION.md", "actions/2026-09-21_review/inputs/note.md", "concepts/index.md", "concepts/site.md", "projects/atlas.md"},
	},
	{
		name:   "removed folder",
		change: func(f *fixture) { f.remove("actions") },
		want:   []string{"concepts/index.md", "concepts/site.md", "mail:m-1", "projects/atlas.md"},
	},
}

// checkRefreshed compares what c serves with the case.
func checkRefreshed(t *testing.T, c *Cache, tt refreshCase) {
	t.Helper()
	if diff := cmp.Diff(tt.want, refs(t, c)); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	if tt.title[0] != "" {
		if got := titleOf(t, c, tt.title[0]); got != tt.title[1] {
			t.Errorf("title of %s = %q, want %q", tt.title[0], got, tt.title[1])
		}
	}
	// Rows of removed items are gone everywhere.
	for _, tb := range []string{"passages", "tasks", "names", "links", "tags", "edges"} {
		var orphans int
		c.DB().QueryRow(`SELECT count(*) FROM ` + tb + ` WHERE item NOT IN (SELECT id FROM items)`).Scan(&orphans)
		if orphans != 0 {
			t.Errorf("%s keeps %d orphan rows", tb, orphans)
		}
	}
	var fts int
	c.DB().QueryRow(`SELECT count(*) FROM search WHERE rowid NOT IN (SELECT id FROM passages)`).Scan(&fts)
	if fts != 0 {
		t.Errorf("search keeps %d orphan rows", fts)
	}
	var files int
	c.DB().QueryRow(`SELECT count(*) FROM files`).Scan(&files)
	if files != len(tt.want) {
		t.Errorf("files = %d, want %d", files, len(tt.want))
	}
}

func TestOpenWithoutBuild(t *testing.T) {
	f := smallBrain(t)
	c := f.open() // no generation yet: Open builds one
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items = %d, want 6", got)
	}
	if _, err := os.Stat(f.path(".bf/index.sqlite.new")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("index.sqlite.new left behind: %v", err)
	}
}

func TestSkippedFiles(t *testing.T) {
	f := smallBrain(t)
	f.build()
	f.write("projects/broken.md", "---\nupdated: 2026-13-45\n---\n# Broken\n")
	f.write("memories/mail/"+strings.Repeat("0", 64)+".json", `{"id":"other","title":"Misnamed"}`)
	f.write("memories/mail/notes.json", `{}`)
	f.writeRecord("mail", "bad", `"title":"","text":"x"`)
	f.write("concepts/big.md", strings.Repeat("x", 4<<20+1))
	if err := os.Symlink(f.path("concepts/site.md"), f.path("concepts/link.md")); err != nil {
		t.Fatal(err)
	}
	c := f.open()
	want := []brain.Problem{
		{Brain: "work", File: "concepts/big.md", Error: "note exceeds 4 MiB"},
		{Brain: "work", File: "concepts/link.md", Error: "symbolic links are not followed; move the file into the brain"},
		{Brain: "work", File: "memories/mail/0000000000000000000000000000000000000000000000000000000000000000.json", Error: "record id does not match its SHA-256 filename; run bf validate and reconcile it"},
		{Brain: "work", File: recordPath("mail", "bad"), Error: "invalid record: title: must be 1-4,096 characters"},
		{Brain: "work", File: "memories/mail/notes.json", Error: "record files are named by the SHA-256 of the record id; run bf validate and reconcile it"},
		{Brain: "work", File: "projects/broken.md", Error: "invalid note: updated: expected YYYY-MM-DD"},
	}
	sort.Slice(want, func(i, j int) bool { return want[i].File < want[j].File })
	if diff := cmp.Diff(want, c.Status.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	// The rest still answers.
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items = %d, want 6", got)
	}
	c.Close()
	// Unchanged files keep their error without being read again; a repaired one clears.
	f.write("projects/broken.md", "---\nupdated: 2026-09-13\n---\n# Repaired\n")
	c = f.open()
	if len(c.Status.Problems) != 5 || titleOf(t, c, "projects/broken.md") != "Repaired" {
		t.Errorf("after repair: problems %v, title %q", c.Status.Problems, titleOf(t, c, "projects/broken.md"))
	}
	c.Close()
	res := f.build()
	if res.Skipped != 5 || res.Files != 12 {
		t.Errorf("build = %+v, want 12 files with 5 skipped", res)
	}
}

func TestManySkippedFiles(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 205 {
		f.write(fmt.Sprintf("concepts/bad-%03d.md", i), "---\nupdated: nope\n---\n")
	}
	f.write("concepts/good.md", "# Good\n")
	c := f.open()
	p := c.Status.Problems
	if len(p) != 201 {
		t.Fatalf("problems = %d, want 201", len(p))
	}
	if p[0].File != "concepts/bad-000.md" || p[199].File != "concepts/bad-199.md" {
		t.Errorf("first problems = %v … %v", p[0], p[199])
	}
	if diff := cmp.Diff(brain.Problem{Error: "5 more files were skipped; run bf validate"}, p[200]); diff != "" {
		t.Errorf("last problem (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"concepts/good.md"}, refs(t, c)); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
}

func TestErrorIsCapped(t *testing.T) {
	long := strings.Repeat("é", 600)
	got := clipError(long)
	if len(got) > 1024 || !strings.HasSuffix(got, "…") {
		t.Errorf("clipError: %d bytes, suffix %q", len(got), got[len(got)-3:])
	}
	if clipError("short") != "short" {
		t.Error("short error changed")
	}
}

func TestDeletedCacheIsRebuilt(t *testing.T) {
	f := smallBrain(t)
	c := f.open()
	want := rows(t, c.DB(), `SELECT ref, title, lead FROM items ORDER BY ref`)
	c.Close()
	f.remove(".bf")
	c = f.open()
	if diff := cmp.Diff(want, rows(t, c.DB(), `SELECT ref, title, lead FROM items ORDER BY ref`)); diff != "" {
		t.Errorf("after deleting .bf (-want +got):\n%s", diff)
	}
}

func TestKilledBuildLeftover(t *testing.T) {
	f := smallBrain(t)
	f.build()
	// A build killed mid-fill leaves a partial .new file (and maybe its journal).
	f.write(".bf/index.sqlite.new", "partial generation")
	f.write(".bf/index.sqlite.new-journal", "journal")
	c := f.open()
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items = %d, want 6", got)
	}
	c.Close()
	f.build()
	for _, p := range []string{".bf/index.sqlite.new", ".bf/index.sqlite.new-journal"} {
		if _, err := os.Stat(f.path(p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived the next build", p)
		}
	}
}

func TestRebuilds(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, f *fixture)
	}{
		{"signature: a declared field", func(t *testing.T, f *fixture) {
			f.write("bf.yaml", testConfig+"  team:\n    description: Team.\n    type: string\n")
		}},
		{"damaged file", func(t *testing.T, f *fixture) {
			f.write(".bf/index.sqlite", strings.Repeat("garbage!", 1024))
		}},
		{"copied cache", func(t *testing.T, f *fixture) {
			data, err := os.ReadFile(f.path(".bf/index.sqlite"))
			if err != nil {
				t.Fatal(err)
			}
			f.write(".bf/copy", string(data))
			if err := os.Rename(f.path(".bf/copy"), f.path(".bf/index.sqlite")); err != nil {
				t.Fatal(err)
			}
		}},
		{"other schema version", func(t *testing.T, f *fixture) {
			db, err := openFile(f.path(".bf/index.sqlite"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("PRAGMA user_version = 999"); err != nil {
				t.Fatal(err)
			}
		}},
		{"previous schema version", func(t *testing.T, f *fixture) {
			// Version 4 indexed edges by target and items by kind and time alone, with no index of
			// projects: such a cache is rebuilt, never read.
			db, err := openFile(f.path(".bf/index.sqlite"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`DROP INDEX edges_target; CREATE INDEX edges_target ON edges(target);
				DROP INDEX items_kind_time; CREATE INDEX items_kind_time ON items(kind, time); DROP INDEX items_projects;
				PRAGMA user_version = 4`); err != nil {
				t.Fatal(err)
			}
		}},
		{"schema version 10", func(t *testing.T, f *fixture) {
			// Version 10 had no term_docs, which searches and refreshes read: such a cache is
			// rebuilt, never read.
			db, err := openFile(f.path(".bf/index.sqlite"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("DROP TABLE term_docs; PRAGMA user_version = 10"); err != nil {
				t.Fatal(err)
			}
		}},
		{"schema version 3", func(t *testing.T, f *fixture) {
			// Version 3 had no heavy table.
			db, err := openFile(f.path(".bf/index.sqlite"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("DROP TABLE heavy; PRAGMA user_version = 3"); err != nil {
				t.Fatal(err)
			}
		}},
		{"extra trigger", func(t *testing.T, f *fixture) {
			db, err := openFile(f.path(".bf/index.sqlite"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec("CREATE TRIGGER t AFTER INSERT ON items BEGIN SELECT 1; END"); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			tt.change(t, f)
			before := inode(t, f.path(".bf/index.sqlite"))
			c := f.open()
			if got := len(refs(t, c)); got != 6 {
				t.Errorf("items = %d, want 6", got)
			}
			if inode(t, f.path(".bf/index.sqlite")) == before {
				t.Errorf("not rebuilt")
			}
			var sig, file string
			c.DB().QueryRow(`SELECT signature, file FROM meta`).Scan(&sig, &file)
			if sig != signature(f.brain()) || file != fmt.Sprint(inode(t, f.path(".bf/index.sqlite"))) {
				t.Errorf("meta = %s %s, not this brain and file", sig, file)
			}
		})
	}
}

func TestSignature(t *testing.T) {
	f := newFixture(t, nil)
	base := signature(f.brain())
	// Descriptions and examples do not change what is indexed.
	f.write("bf.yaml", strings.Replace(testConfig, "Person or team responsible for the subject.", "Who answers for it.", 1))
	if signature(f.brain()) != base {
		t.Error("a description changed the signature")
	}
	f.write("bf.yaml", strings.Replace(testConfig, "name: work", "name: home", 1))
	if signature(f.brain()) == base {
		t.Error("the brain name did not change the signature")
	}
}

// holdLock takes a lock on its own descriptor, as another process would.
func holdLock(t *testing.T, f *fixture, name string, exclusive bool) func() {
	t.Helper()
	l, err := acquire(context.Background(), f.path(".bf"), name, exclusive, 0)
	if err != nil {
		t.Fatal(err)
	}
	return l.release
}

func TestStale(t *testing.T) {
	for _, lockName := range []string{WriterLockFile, readerLockFile} {
		t.Run(lockName, func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			f.write("concepts/site.md", "# Site changed\n")
			release := holdLock(t, f, lockName, true)
			c := f.open()
			if !c.Status.Stale {
				t.Error("Stale = false while another writer holds the brain")
			}
			if got := titleOf(t, c, "concepts/site.md"); got != "Site" {
				t.Errorf("served title %q, want the previous generation's", got)
			}
			c.Close()
			release()
			c = f.open()
			if c.Status.Stale || titleOf(t, c, "concepts/site.md") != "Site changed" {
				t.Errorf("after release: stale %v, title %q", c.Status.Stale, titleOf(t, c, "concepts/site.md"))
			}
		})
	}
}

// TestOpenFresh: where Open serves the previous generation while another writer holds the
// brain, OpenFresh waits for that writer and serves the change written before it was
// called; a brain held longer than freshWait (a bf build) it serves as Open does.
func TestOpenFresh(t *testing.T) {
	defer func(w time.Duration) { freshWait = w }(freshWait)
	freshWait = time.Second
	for _, c := range []struct {
		lock    string
		heldFor time.Duration
		stale   bool
		title   string
	}{
		{WriterLockFile, 200 * time.Millisecond, false, "Site changed"},
		{readerLockFile, 200 * time.Millisecond, false, "Site changed"},
		{WriterLockFile, 3 * time.Second, true, "Site"},
	} {
		t.Run(fmt.Sprintf("%s held %v", c.lock, c.heldFor), func(t *testing.T) {
			f := smallBrain(t)
			f.build()
			f.write("concepts/site.md", "# Site changed\n")
			release := holdLock(t, f, c.lock, true)
			let := time.AfterFunc(c.heldFor, release)
			defer func() {
				if let.Stop() {
					release()
				}
			}()
			start := time.Now()
			got, err := OpenFresh(context.Background(), f.brain())
			if err != nil {
				t.Fatal(err)
			}
			defer got.Close()
			if waited := time.Since(start); waited < min(c.heldFor, freshWait)*3/4 {
				t.Errorf("served after %v, before the lock was let go or freshWait passed", waited)
			}
			if got.Status.Stale != c.stale || titleOf(t, got, "concepts/site.md") != c.title {
				t.Errorf("stale %v, title %q; want %v, %q", got.Status.Stale, titleOf(t, got, "concepts/site.md"), c.stale, c.title)
			}
		})
	}
}

func TestStaleNotNeededWhenFresh(t *testing.T) {
	f := smallBrain(t)
	f.build()
	release := holdLock(t, f, WriterLockFile, true)
	defer release()
	c := f.open()
	if c.Status.Stale {
		t.Error("Stale = true although nothing changed")
	}
}

func TestWaitsWithoutGeneration(t *testing.T) {
	f := smallBrain(t)
	if err := os.Mkdir(f.path(".bf"), 0o700); err != nil {
		t.Fatal(err)
	}
	release := holdLock(t, f, WriterLockFile, true)
	go func() {
		time.Sleep(200 * time.Millisecond)
		release()
	}()
	start := time.Now()
	c := f.open()
	if c.Status.Stale || len(refs(t, c)) != 6 {
		t.Errorf("status %+v, refs %v", c.Status, refs(t, c))
	}
	if time.Since(start) < 150*time.Millisecond {
		t.Error("Open did not wait for the writer")
	}
}

// TestBuildWaitsForOpenCaches holds a cache open while a build reaches its swap: the swap
// must wait until the cache is closed, and the open cache keeps reading its generation
// meanwhile.
func TestBuildWaitsForOpenCaches(t *testing.T) {
	f := smallBrain(t)
	c := f.open()
	var closed, swappedOpen atomic.Bool
	atSwap := make(chan struct{})
	onTurnstile = func() { close(atSwap) }
	onSwap = func() { swappedOpen.Store(!closed.Load()) }
	defer func() { onTurnstile, onSwap = nil, nil }()
	done := make(chan error, 1)
	go func() {
		_, err := Build(context.Background(), f.brain(), nil)
		done <- err
	}()
	select {
	case <-atSwap:
	case err := <-done:
		t.Fatalf("the build ended without reaching its swap: %v", err)
	}
	// A build that did not wait would swap and end within this pause.
	select {
	case err := <-done:
		t.Fatalf("the build ended while a cache was open (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items while the build waits = %d", got)
	}
	closed.Store(true)
	c.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if swappedOpen.Load() {
		t.Error("the build swapped generations while a cache was open")
	}
	c = f.open()
	if got := len(refs(t, c)); got != 6 {
		t.Errorf("items after build = %d", got)
	}
}

// TestWarmOpenListsOnlyChangedSources proves with a counter, not timing, that a warm open
// lists only the source folders that changed.
func TestWarmOpenListsOnlyChangedSources(t *testing.T) {
	// The clock of the first open is pinned before the files are written, so that however
	// long writing and building take on a busy machine, every folder is still recent.
	before := time.Now()
	f := newFixture(t, map[string]string{"concepts/a.md": "# A\n"})
	for i := range 300 {
		f.writeRecord("big", fmt.Sprintf("b-%d", i), `"title":"Big"`)
	}
	f.writeRecord("small", "s-0", `"title":"Small"`)
	f.writeRecord("nested", "n-0", `"title":"Nested"`)
	if err := os.Mkdir(f.path("memories/nested/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	f.build()

	var listed []string
	onListSource = func(folder string) { listed = append(listed, folder) }
	defer func() { onListSource = nil; clock = time.Now }()
	open := func() {
		listed = nil
		f.open().Close()
		sort.Strings(listed)
	}

	// Within the settle time every recently changed folder is listed again.
	clock = func() time.Time { return before }
	open()
	if diff := cmp.Diff([]string{"memories/big", "memories/nested", "memories/small"}, listed); diff != "" {
		t.Errorf("within the settle time (-want +got):\n%s", diff)
	}
	// Once settled, only the folder holding a subfolder is listed.
	clock = func() time.Time { return time.Now().Add(time.Minute) }
	open()
	if diff := cmp.Diff([]string{"memories/nested"}, listed); diff != "" {
		t.Errorf("settled (-want +got):\n%s", diff)
	}
	// Adding a record lists its folder only, and finds it.
	f.writeRecord("small", "s-1", `"title":"Small two"`)
	open()
	if diff := cmp.Diff([]string{"memories/nested", "memories/small"}, listed); diff != "" {
		t.Errorf("after one new record (-want +got):\n%s", diff)
	}
	c := f.open()
	if got := titleOf(t, c, "small:s-1"); got != "Small two" {
		t.Errorf("new record title = %q", got)
	}
	var n int
	c.DB().QueryRow(`SELECT count(*) FROM items`).Scan(&n)
	if n != 304 {
		t.Errorf("items = %d, want 304", n)
	}
}

func TestInterruptedTransaction(t *testing.T) {
	f := smallBrain(t)
	f.build()
	orig := f.writeRecord("mail", "m-2", `"title":"Before"`)
	backup, _ := os.ReadFile(f.path(orig))
	f.writeRecord("mail", "m-2", `"title":"Half written"`)
	created := f.writeRecord("mail", "m-3", `"title":"Created"`)
	f.write("memories/.pending/0.before", string(backup))
	f.write("memories/.pending/manifest.json", fmt.Sprintf(`{"changes":[{"existed":true,"name":%q},{"existed":false,"name":%q}],"complete":false,"source":"mail","version":1}`,
		filepath.Base(orig), filepath.Base(created)))
	_, err := Open(context.Background(), f.brain())
	if err == nil || err.Error() != "records contain an interrupted transaction; run bf build or bf update to recover it before reading" {
		t.Fatalf("Open = %v", err)
	}
	if _, err := Build(context.Background(), f.brain(), nil); err != nil {
		t.Fatal(err)
	}
	c := f.open()
	if titleOf(t, c, "mail:m-2") != "Before" || titleOf(t, c, "mail:m-3") != "" {
		t.Errorf("after recovery: m-2 %q, m-3 %q", titleOf(t, c, "mail:m-2"), titleOf(t, c, "mail:m-3"))
	}
	if _, err := os.Stat(f.path("memories/.pending")); !errors.Is(err, os.ErrNotExist) {
		t.Error("journal left behind")
	}
}

func TestCompletedTransactionDoesNotBlock(t *testing.T) {
	f := smallBrain(t)
	f.write("memories/.pending/manifest.json", `{"changes":[],"complete":true,"source":"mail","version":1}`)
	c := f.open()
	if len(refs(t, c)) != 6 {
		t.Error("a completed journal blocked reading")
	}
}

func TestDirRules(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, f *fixture)
		wantErr string
		check   func(t *testing.T, f *fixture)
	}{
		{name: "created 0700", setup: func(t *testing.T, f *fixture) {}, check: func(t *testing.T, f *fixture) {
			st, _ := os.Stat(f.path(".bf"))
			if st.Mode().Perm() != 0o700 {
				t.Errorf("mode %v", st.Mode().Perm())
			}
		}},
		{name: "loose mode tightened", setup: func(t *testing.T, f *fixture) {
			os.Mkdir(f.path(".bf"), 0o755)
			os.Chmod(f.path(".bf"), 0o755)
		}, check: func(t *testing.T, f *fixture) {
			st, _ := os.Stat(f.path(".bf"))
			if st.Mode().Perm() != 0o700 {
				t.Errorf("mode %v", st.Mode().Perm())
			}
		}},
		{name: "symlink", setup: func(t *testing.T, f *fixture) {
			os.Mkdir(f.path("elsewhere"), 0o700)
			os.Symlink(f.path("elsewhere"), f.path(".bf"))
		}, wantErr: ".bf is a symbolic link; remove it so bf can rebuild its own cache"},
		{name: "a file", setup: func(t *testing.T, f *fixture) { f.write(".bf", "x") },
			wantErr: ".bf is not a folder; remove it so bf can rebuild its own cache"},
		{name: "another user", setup: func(t *testing.T, f *fixture) {
			geteuid = func() int { return os.Geteuid() + 1000 }
		}, wantErr: ".bf belongs to another user; remove it so bf can rebuild its own cache"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() { geteuid = os.Geteuid }()
			f := smallBrain(t)
			tt.setup(t, f)
			c, err := Open(context.Background(), f.brain())
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				c.Close()
			}
			if got != tt.wantErr {
				t.Fatalf("Open error = %q, want %q", got, tt.wantErr)
			}
			if tt.check != nil {
				tt.check(t, f)
			}
		})
	}
}

func TestReadOnlyBrain(t *testing.T) {
	for _, err := range []error{syscall.EROFS, syscall.EACCES} {
		msg := dirError(&os.PathError{Op: "mkdir", Path: "/x/.bf", Err: err}).Error()
		if !strings.Contains(msg, ".bf") || strings.Contains(msg, "/x") {
			t.Errorf("%v: %q", err, msg)
		}
	}
	if os.Geteuid() == 0 {
		t.Skip("root ignores folder permissions")
	}
	f := smallBrain(t)
	os.Chmod(f.Root, 0o555)
	defer os.Chmod(f.Root, 0o755)
	_, err := Open(context.Background(), f.brain())
	if err == nil || !strings.Contains(err.Error(), ".bf") {
		t.Errorf("Open = %v, want an error naming .bf", err)
	}
}

func TestPrepareVanishedAndUnreadable(t *testing.T) {
	f := newFixture(t, map[string]string{"concepts/a.md": "# A\n"})
	ix := newIndexer(f.brain())
	gone := prepare(ix, f.Root, input{path: "concepts/gone.md", fp: fingerprint{Size: 1, Mtime: 2, Ctime: 3, Inode: 4}})
	if !gone.vanished || gone.err != "" {
		t.Errorf("vanished file: %+v", gone)
	}
	os.Mkdir(f.path("concepts/dir.md"), 0o755)
	odd := prepare(ix, f.Root, input{path: "concepts/dir.md", fp: fingerprint{Size: 1, Mtime: 2, Ctime: 3, Inode: 4}})
	if odd.err != "cannot read file: not a regular file" || odd.in.fp != unknown {
		t.Errorf("special file: %+v", odd)
	}
}

// TestListingDigest proves with a counter that an open reads the stored files of an
// authored root only when its listing is not the one the generation holds.
func TestListingDigest(t *testing.T) {
	f := smallBrain(t)
	f.build()
	var read []string
	onReadScope = func(s string) {
		if isAuthoredScope(s) {
			read = append(read, s)
		}
	}
	defer func() { onReadScope = nil }()
	open := func() []string {
		read = nil
		c := f.open()
		c.Close()
		sort.Strings(read)
		return read
	}
	if got := open(); len(got) != 0 {
		t.Errorf("after a build, read %v", got)
	}
	f.write("concepts/site.md", "# Site renamed\n\nLonger text now.\n")
	if diff := cmp.Diff([]string{"concepts/"}, open()); diff != "" {
		t.Errorf("after an edit (-want +got):\n%s", diff)
	}
	if got := open(); len(got) != 0 {
		t.Errorf("after the refresh, read %v", got)
	}
	if got := titleOf(t, f.open(), "concepts/site.md"); got != "Site renamed" {
		t.Errorf("title = %q", got)
	}
	f.remove("projects")
	if diff := cmp.Diff([]string{"projects/"}, open()); diff != "" {
		t.Errorf("after removing a root (-want +got):\n%s", diff)
	}
	if got := open(); len(got) != 0 {
		t.Errorf("after removing a root and a refresh, read %v", got)
	}

	// Without stored digests every root is compared file by file; an open that finds
	// nothing to change stores them.
	db, err := openFile(f.path(".bf/index.sqlite"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM scopes`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if diff := cmp.Diff([]string{"actions/", "concepts/", "projects/"}, open()); diff != "" {
		t.Errorf("without digests (-want +got):\n%s", diff)
	}
	if got := open(); len(got) != 0 {
		t.Errorf("once stored again, read %v", got)
	}
}

// TestInexactScopeKeepsNoDigest: a root holding a file applied with another fingerprint
// than listed (gone before it was read, or read with an error) stores no digest, so the
// next open compares it file by file.
func TestInexactScopeKeepsNoDigest(t *testing.T) {
	f := smallBrain(t)
	f.build()
	db, err := openFile(f.path(".bf/index.sqlite"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	w, err := newWriter(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	gone := input{path: "concepts/gone.md", fp: fingerprint{Size: 1, Mtime: 2, Ctime: 3, Inode: 4}}
	if err := w.apply(ctx, newIndexer(f.brain()), f.Root, []input{gone}, true, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"concepts/", "projects/"} {
		if err := w.setScope(ctx, s, "d1"); err != nil {
			t.Fatal(err)
		}
	}
	got, err := storedScopes(ctx, tx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["concepts/"]; ok || got["projects/"] != "d1" {
		t.Errorf("scopes = %v, want projects/ only", got)
	}
}

// note_days holds the days of the notes, and no other, after a build and after every
// refresh: a note added on a new day, a note moved to another day, the last note of a day
// removed, a record added (a refresh that leaves note_days alone).
func TestNoteDaysKept(t *testing.T) {
	note := func(day string) string { return "---\nupdated: " + day + "\n---\n# Note\n\nText.\n" }
	f := newFixture(t, map[string]string{
		"projects/a.md": note("2026-09-01"),
		"projects/b.md": note("2026-09-01"),
		"projects/c.md": note("2026-09-03"),
		"concepts/d.md": "# Undated\n",
	})
	f.writeRecord("mail", "m-1", `"title":"Mail","text":"Text.","time":"2026-09-02T09:00:00Z"`)
	check := func(step string, want []string) {
		t.Helper()
		c := f.open()
		defer c.Close()
		got := rows(t, c.DB(), `SELECT day FROM note_days ORDER BY day`)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: note_days (-want +got):\n%s", step, diff)
		}
		distinct := rows(t, c.DB(), `SELECT DISTINCT substr(time, 1, 10) FROM items WHERE kind = 'note' AND time > '' ORDER BY 1`)
		if diff := cmp.Diff(distinct, got); diff != "" {
			t.Errorf("%s: note_days against items (-items +note_days):\n%s", step, diff)
		}
	}
	f.build()
	check("build", []string{"2026-09-01", "2026-09-03"})
	f.write("actions/2026-10-05_plan/ACTION.md", "---\nupdated: 2026-10-05\n---\n# Plan\n")
	check("a note on a new day", []string{"2026-09-01", "2026-09-03", "2026-10-05"})
	f.write("projects/c.md", note("2026-09-04"))
	check("a note moved to another day", []string{"2026-09-01", "2026-09-04", "2026-10-05"})
	f.remove("projects/a.md")
	check("one of a day's two notes removed", []string{"2026-09-01", "2026-09-04", "2026-10-05"})
	f.remove("projects/b.md")
	check("the day's last note removed", []string{"2026-09-04", "2026-10-05"})
	f.writeRecord("mail", "m-2", `"title":"Later","text":"Text.","time":"2026-11-20T09:00:00Z"`)
	check("a record alone", []string{"2026-09-04", "2026-10-05"})
}

// Days converts a note's day as NoteDays lists it, in a zone whose midnights move with
// daylight saving time.
func TestDays(t *testing.T) {
	zone, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err) // bf embeds the zone database (config)
	}
	note := func(day string) string { return "---\nupdated: " + day + "\n---\n# Note\n\nText.\n" }
	f := newFixture(t, map[string]string{
		"projects/winter.md": note("2026-01-15"),
		"projects/summer.md": note("2026-07-15"),
		"projects/switch.md": note("2026-03-08"),
	})
	f.build()
	c := f.open()
	defer c.Close()
	ctx := context.Background()
	tx, err := c.DB().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	days := NewDays(tx, zone)
	for day, want := range map[string]string{
		"2026-01-15": "2026-01-15T05:00:00.000000Z", "2026-07-15": "2026-07-15T04:00:00.000000Z",
		"2026-03-08": "2026-03-08T05:00:00.000000Z", "2026-02-30": "", "": "", "0001-01-01": "",
	} {
		if got := days.At(day); got != want {
			t.Errorf("At(%q) = %q, want %q", day, got, want)
		}
	}
	js, err := days.JSON(ctx)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := NoteDays(ctx, tx, zone)
	if err != nil {
		t.Fatal(err)
	}
	if js != listed {
		t.Errorf("JSON = %s, NoteDays %s", js, listed)
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 {
		t.Errorf("JSON lists %d days, want 3: %s", len(m), js)
	}
	for day, at := range m {
		if got := days.At(day); got != at {
			t.Errorf("At(%q) = %q, JSON maps it to %q", day, got, at)
		}
	}
}
