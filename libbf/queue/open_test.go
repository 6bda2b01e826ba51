package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const rebindMsg = "assistant queue holds unresolved work admitted under this brain's previous path or name; " +
	"restore the path /home/dana/brain and the name work, resolve the work with bf queue, then move or rename the brain again; " +
	"/home/dana/brain is no longer this folder: if that brain was moved here, or deleted and this folder is a new brain, " +
	"take its queue over with bf queue --adopt, then retry or cancel its work"

// TestBinding covers opening for execution under the bound path and name, after a move or
// a rename without unresolved work (rebound), and with unresolved work (refused).
func TestBinding(t *testing.T) {
	moved := Binding{Path: "/home/dana/notes", Name: "work"}
	renamed := Binding{Path: "/home/dana/brain", Name: "home"}
	tests := []struct {
		name  string
		work  func(t *testing.T, q *Queue)
		open  Binding
		err   string
		bound Binding
	}{
		{name: "same binding", work: pendingWork, open: testBinding, bound: testBinding},
		{name: "moved, nothing unresolved", open: moved, bound: moved},
		{name: "renamed, only resolved work", work: resolvedWork, open: renamed, bound: renamed},
		{name: "moved with pending work", work: pendingWork, open: moved, err: rebindMsg, bound: testBinding},
		{name: "renamed with a failed delivery", work: failedWork, open: renamed, err: rebindMsg, bound: testBinding},
		{name: "renamed with an answered job", work: func(t *testing.T, q *Queue) { answered(t, q, "j", idem) }, open: renamed, err: rebindMsg, bound: testBinding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, dir := openTest(t, Options{})
			if tt.work != nil {
				tt.work(t, q)
			}
			q.Close()

			// bf status reads the queue normally and reports the refusal as a problem.
			ro, err := OpenReadOnly(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := errText(ro.CheckBinding(tt.open)); got != tt.err {
				t.Errorf("CheckBinding = %q, want %q", got, tt.err)
			}
			ro.Close()

			q2, err := Open(dir, tt.open, Options{})
			if tt.err != "" {
				checkErr(t, err, ErrRebind, tt.err)
			} else if err != nil {
				t.Fatal(err)
			} else {
				q2.Close()
			}
			ro, err = OpenReadOnly(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if got := ro.Binding(); got != tt.bound {
				t.Errorf("bound to %+v, want %+v", got, tt.bound)
			}
		})
	}
}

// TestTakeover: a queue whose bound path is gone is taken over with its unresolved work
// (a moved brain, or a new brain on a deleted one's inode); one whose path is still the
// brain's folder is refused, and the rebind refusal offers the takeover only when the
// path cannot be restored.
func TestTakeover(t *testing.T) {
	here := t.TempDir()
	tests := []struct {
		name   string
		bound  Binding
		open   Binding
		rebind string
		err    string
		final  Binding
	}{
		{name: "bound path gone", bound: testBinding, open: Binding{Path: here, Name: "x2"}, rebind: rebindMsg, final: Binding{Path: here, Name: "x2"}},
		{name: "bound path is this folder, renamed", bound: Binding{Path: here, Name: "x1"}, open: Binding{Path: here, Name: "x2"},
			rebind: "assistant queue holds unresolved work admitted under this brain's previous path or name; restore the path " + here +
				" and the name x1, resolve the work with bf queue, then move or rename the brain again",
			err:   "assistant queue is bound to the brain x1 at " + here + ", which is still this folder; restore the name x1 in bf.yaml and resolve its work with bf queue instead",
			final: Binding{Path: here, Name: "x1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := testDir(t)
			q, err := Open(dir, tt.bound, Options{})
			if err != nil {
				t.Fatal(err)
			}
			pendingWork(t, q)
			q.Close()
			_, err = Open(dir, tt.open, Options{})
			checkErr(t, err, ErrRebind, tt.rebind)

			q, prev, err := Takeover(dir, tt.open, Options{})
			if tt.err != "" {
				checkErr(t, err, ErrRebind, tt.err)
			} else if err != nil {
				t.Fatal(err)
			} else {
				if prev != tt.bound {
					t.Errorf("previous binding %+v, want %+v", prev, tt.bound)
				}
				items, err := q.List()
				if err != nil {
					t.Fatal(err)
				}
				if len(items) != 1 || items[0].ID != "d" || items[0].State != Pending {
					t.Errorf("taken over items %+v, want the pending delivery d", items)
				}
				q.Close()
			}
			ro, err := OpenReadOnly(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			if got := ro.Binding(); got != tt.final {
				t.Errorf("bound to %+v, want %+v", got, tt.final)
			}
		})
	}
}

func pendingWork(t *testing.T, q *Queue) {
	mustAdmit(t, q, NewDelivery{ID: "d", Channel: "chat", Text: "x", Send: idem})
}

func failedWork(t *testing.T, q *Queue) {
	pendingWork(t, q)
	mustBegin(t, q, "d", idem).Finish(SendFailed("send exited with status 1"))
}

func resolvedWork(t *testing.T, q *Queue) {
	pendingWork(t, q)
	mustBegin(t, q, "d", idem).Finish(Sent(Receipt{ID: "m"}))
}

// TestFormat: a queue of another format is refused, by writers and readers alike, and left
// as it was.
func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		kind error
		msg  string
	}{
		{"earlier numbered format", "PRAGMA application_id = 0; PRAGMA user_version = 2", errOldFormat, msgOldFormat},
		{"earliest format without a number", "PRAGMA application_id = 0; PRAGMA user_version = 0", errOldFormat, msgOldFormat},
		{"later format", "PRAGMA user_version = 4", errUnknownFormat, msgUnknownFormat},
		{"another program's database", "PRAGMA application_id = 42", errUnknownFormat, msgUnknownFormat},
		{"same number, other layout", "CREATE TABLE extra (x)", errUnknownFormat, msgUnknownFormat},
		{"same number, a missing index", "DROP INDEX jobs_state", errUnknownFormat, msgUnknownFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, _, dir := openTest(t, Options{})
			pendingWork(t, q)
			if _, err := q.conn.ExecContext(ctx, tt.sql); err != nil {
				t.Fatal(err)
			}
			q.Close()
			before, _ := os.ReadFile(filepath.Join(dir, FileName))
			_, err := Open(dir, testBinding, Options{})
			checkErr(t, err, tt.kind, tt.msg)
			_, err = OpenReadOnly(dir, Options{})
			checkErr(t, err, tt.kind, tt.msg)
			after, _ := os.ReadFile(filepath.Join(dir, FileName))
			if string(before) != string(after) {
				t.Error("a refused queue was changed")
			}
		})
	}
	t.Run("not a database", func(t *testing.T) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, FileName), []byte("this is not SQLite, but long enough to have a header of sorts....................................................."), 0o600)
		_, err := Open(dir, testBinding, Options{})
		checkErr(t, err, errUnknownFormat, msgUnknownFormat)
	})
	t.Run("no queue yet", func(t *testing.T) {
		_, err := OpenReadOnly(t.TempDir(), Options{})
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error = %v, want not exist", err)
		}
	})
	t.Run("missing state folder", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "runtime", "1-2")
		_, err := Open(dir, testBinding, Options{})
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("error = %v, want not exist", err)
		}
	})
}

// TestDurabilitySettings: every writer uses a rollback journal synced with EXTRA.
func TestDurabilitySettings(t *testing.T) {
	q, _, dir := openTest(t, Options{})
	var mode string
	var sync, fullfsync int
	q.conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	q.conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync)
	q.conn.QueryRowContext(ctx, "PRAGMA fullfsync").Scan(&fullfsync)
	if mode != "delete" || sync != 3 || fullfsync != 1 {
		t.Errorf("journal_mode %s, synchronous %d, fullfsync %d; want delete, 3 (EXTRA), 1", mode, sync, fullfsync)
	}
	st, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("queue file mode %v, %v; want 0600", st.Mode(), err)
	}
	// A queue someone switched to WAL goes back to a rollback journal.
	q.conn.ExecContext(ctx, "PRAGMA journal_mode = WAL")
	q.Close()
	q2, err := Open(dir, testBinding, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	q2.conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
	if mode != "delete" {
		t.Errorf("journal_mode %s after reopening, want delete", mode)
	}
}

// TestAdopt covers the renumbered-device folder adoption.
func TestAdopt(t *testing.T) {
	const path = "/home/dana/brain"
	queueIn := func(bound string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			q, err := Open(dir, Binding{Path: bound, Name: "work"}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			pendingWork(t, q)
			q.Close()
		}
	}
	broken := func(t *testing.T, dir string) {
		os.WriteFile(filepath.Join(dir, FileName), []byte("garbage, not a queue, padded well past one hundred bytes so SQLite reads a header........................................"), 0o600)
	}
	noQueue := func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "sensors.json"), []byte("{}"), 0o600) }
	type folder struct {
		name string
		make func(t *testing.T, dir string)
	}
	tests := []struct {
		name    string
		folders []folder
		adopted string
		err     string
		after   []string
	}{
		{name: "current folder exists", folders: []folder{{"9-77", noQueue}, {"5-77", queueIn(path)}}, after: []string{"5-77", "9-77"}},
		{name: "one bound folder", folders: []folder{{"5-77", queueIn(path)}, {"5-78", queueIn(path)}, {"6-77", queueIn("/elsewhere")}},
			adopted: "5-77", after: []string{"5-78", "6-77", "9-77"}},
		{name: "folder without a queue", folders: []folder{{"5-77", noQueue}}, after: []string{"5-77"}},
		{name: "nothing bound here", folders: []folder{{"5-77", queueIn("/elsewhere")}}, after: []string{"5-77"}},
		{name: "several bound", folders: []folder{{"5-77", queueIn(path)}, {"6-77", queueIn(path)}},
			err:   "several assistant queues in the state folder runtime/ are bound to this brain (5-77, 6-77); rename the right folder to runtime/9-77 and move the others out of runtime/",
			after: []string{"5-77", "6-77"}},
		{name: "unreadable", folders: []folder{{"5-77", queueIn(path)}, {"6-77", broken}},
			err:   "assistant queue in the state folder runtime/ (6-77) may belong to this brain but cannot be read; rename the right folder to runtime/9-77 and move the others out of runtime/",
			after: []string{"5-77", "6-77"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime := testDir(t)
			for _, f := range tt.folders {
				dir := filepath.Join(runtime, f.name)
				os.Mkdir(dir, 0o700)
				f.make(t, dir)
			}
			got, err := Adopt(runtime, 9, 77, path)
			if tt.err != "" {
				checkErr(t, err, errAdopt, tt.err)
			} else if err != nil {
				t.Fatal(err)
			}
			if got != tt.adopted {
				t.Errorf("adopted %q, want %q", got, tt.adopted)
			}
			entries, _ := os.ReadDir(runtime)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if diff := cmp.Diff(tt.after, names); diff != "" {
				t.Errorf("runtime/ (-want +got):\n%s", diff)
			}
			if tt.adopted != "" {
				q, err := Open(filepath.Join(runtime, "9-77"), Binding{Path: path, Name: "work"}, Options{})
				if err != nil {
					t.Fatal(err)
				}
				defer q.Close()
				if _, err := q.Get("d"); err != nil {
					t.Errorf("adopted queue lost its work: %v", err)
				}
			}
		})
	}
	t.Run("an interrupted write makes the folder unreadable", func(t *testing.T) {
		runtime := testDir(t)
		dir := filepath.Join(runtime, "5-77")
		os.Mkdir(dir, 0o700)
		queueIn(path)(t, dir)
		os.Remove(filepath.Join(dir, FileName))
		leaveHotJournal(t, dir)
		_, err := Adopt(runtime, 9, 77, path)
		checkErr(t, err, errAdopt, "assistant queue in the state folder runtime/ (5-77) may belong to this brain but cannot be read; rename the right folder to runtime/9-77 and move the others out of runtime/")
	})
}

// TestInterruptedWrite: a reader reports the interrupted write without touching it; the
// next writer rolls it back and the work committed before is intact.
func TestInterruptedWrite(t *testing.T) {
	dir := testDir(t)
	leaveHotJournal(t, dir)
	journal := filepath.Join(dir, FileName+"-journal")
	before, _ := os.ReadFile(journal)
	_, err := OpenReadOnly(dir, Options{})
	checkErr(t, err, errInterruptedWrite, "assistant queue holds an interrupted write; run bf queue to recover it")
	if after, _ := os.ReadFile(journal); string(after) != string(before) {
		t.Fatal("a reader changed the journal")
	}
	q, err := Open(dir, testBinding, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if fileExists(journal) {
		t.Error("the journal survived opening for execution")
	}
	items, err := q.List()
	if err != nil || len(items) != 0 {
		t.Errorf("after rolling back the first admission: %v, %v", items, err)
	}
	var check string
	q.conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check)
	if check != "ok" {
		t.Errorf("integrity_check = %s", check)
	}
}

// TestConcurrentWriters runs two queues on one file from several goroutines: SQLite's
// locks and the busy timeout serialize them and no work is lost or doubled.
func TestConcurrentWriters(t *testing.T) {
	dir := testDir(t)
	c := newClock()
	var queues []*Queue
	for range 2 {
		q, err := Open(dir, testBinding, Options{Now: c.Now})
		if err != nil {
			t.Fatal(err)
		}
		defer q.Close()
		queues = append(queues, q)
	}
	const perWorker = 15
	var wg sync.WaitGroup
	errs := make(chan error, 8*perWorker)
	for w := range 4 {
		q := queues[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				id := fmt.Sprintf("w%d-%02d", w, i)
				if _, _, err := q.AdmitDelivery(NewDelivery{ID: id, Channel: "chat", Text: "text " + id, Send: idem}); err != nil {
					errs <- err
					return
				}
				a, err := q.BeginAttempt(id, &idem)
				if err != nil {
					errs <- err
					return
				}
				if _, err := a.Finish(Sent(Receipt{ID: "m-" + id})); err != nil {
					errs <- err
					return
				}
				if _, err := q.List(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// Readers meanwhile.
	ro, err := OpenReadOnly(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range perWorker {
			if _, err := ro.Summary(); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	items, err := queues[1].List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		if it.State != Delivered || it.Attempts != 1 {
			t.Errorf("%s: %s after %d attempts", it.ID, it.State, it.Attempts)
		}
		got = append(got, it.ID)
	}
	sort.Strings(got)
	var want []string
	for w := range 4 {
		for i := range perWorker {
			want = append(want, fmt.Sprintf("w%d-%02d", w, i))
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	s, _ := queues[0].Summary()
	if s.Deliveries[Delivered] != 4*perWorker {
		t.Errorf("summary counts %v", s.Deliveries)
	}
}
