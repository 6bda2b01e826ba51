package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/record"
	"github.com/google/go-cmp/cmp"
)

// many returns n stored records r00, r01, … as files of memories/mail, and the records.
func many(n int) (map[string]string, []record.Record) {
	files := map[string]string{}
	var recs []record.Record
	for i := range n {
		id := fmt.Sprintf("r%02d", i)
		files[fn(id)] = stored(id, "R", "observed", t1)
		recs = append(recs, rec(id, "R"))
	}
	return files, recs
}

func TestCommitRules(t *testing.T) {
	a, b, c := fn("a"), fn("b"), fn("c")
	guarded := func(removing, of int) string {
		return fmt.Sprintf("snapshot removal guard: the snapshot of mail would remove %d of its %d records; nothing was changed; rerun `bf collect mail --allow-removal` if that is intended", removing, of)
	}
	evidence := func(name, why string) string {
		return "memories/mail/" + name + ": " + why + "; bf never overwrites or removes a record file it cannot attribute: repair it or move it out of the folder, then retry"
	}
	files21, recs21 := many(21)
	files22, recs22 := many(22)
	files12, recs12 := many(12)
	snapshot := Options{Mode: config.ModeSnapshot}

	tests := []struct {
		name       string
		source     string            // "" = mail
		files      map[string]string // memories/mail before
		recs       []record.Record
		opt        Options
		maxEntries int
		want       Counts
		wantErr    string
		after      map[string]string // memories/mail after; nil = as before
	}{
		{
			name:  "a new record is added with observed stamped",
			recs:  []record.Record{rec("a", "A")},
			want:  Counts{Added: 1},
			after: map[string]string{a: stored("a", "A", "observed", obs)},
		},
		{
			name:  "an observed time in the batch gives way to the commit's",
			recs:  []record.Record{rec("a", "A", "observed", t1)},
			want:  Counts{Added: 1},
			after: map[string]string{a: stored("a", "A", "observed", obs)},
		},
		{
			name:  "equal but for observed: unchanged, stored observed kept",
			files: map[string]string{a: stored("a", "A", "observed", t1)},
			recs:  []record.Record{rec("a", "A")},
			want:  Counts{Unchanged: 1},
		},
		{
			name:  "equal content written by hand is not rewritten",
			files: map[string]string{a: "{\n  \"title\": \"A\",\n  \"id\": \"a\"\n}\n"},
			recs:  []record.Record{rec("a", "A")},
			want:  Counts{Unchanged: 1},
		},
		{
			name:  "changed content is updated with a new observed",
			files: map[string]string{a: stored("a", "A", "observed", t1)},
			recs:  []record.Record{rec("a", "B")},
			want:  Counts{Updated: 1},
			after: map[string]string{a: stored("a", "B", "observed", obs)},
		},
		{
			name:  "an older revision never replaces a newer one",
			files: map[string]string{a: stored("a", "A", "updated", t2, "observed", t3)},
			recs:  []record.Record{rec("a", "B", "updated", t1)},
			want:  Counts{Unchanged: 1},
		},
		{
			name:  "a newer stored revision without observed is trusted",
			files: map[string]string{a: stored("a", "A", "updated", t2)},
			recs:  []record.Record{rec("a", "B", "updated", t1)},
			want:  Counts{Unchanged: 1},
		},
		{
			name:  "a stored revision updated after it was observed is not trusted",
			files: map[string]string{a: stored("a", "A", "updated", t3, "observed", t2)},
			recs:  []record.Record{rec("a", "B", "updated", t1)},
			want:  Counts{Updated: 1},
			after: map[string]string{a: stored("a", "B", "updated", t1, "observed", obs)},
		},
		{
			name:  "the same updated time lets the incoming revision in",
			files: map[string]string{a: stored("a", "A", "updated", t2, "observed", t3)},
			recs:  []record.Record{rec("a", "B", "updated", t2)},
			want:  Counts{Updated: 1},
			after: map[string]string{a: stored("a", "B", "updated", t2, "observed", obs)},
		},
		{
			name:  "an incoming revision without updated replaces",
			files: map[string]string{a: stored("a", "A", "updated", t2, "observed", t3)},
			recs:  []record.Record{rec("a", "B")},
			want:  Counts{Updated: 1},
			after: map[string]string{a: stored("a", "B", "observed", obs)},
		},
		{
			name:  "a newer incoming revision replaces",
			files: map[string]string{a: stored("a", "A", "updated", t1, "observed", t1)},
			recs:  []record.Record{rec("a", "B", "updated", t2)},
			want:  Counts{Updated: 1},
			after: map[string]string{a: stored("a", "B", "updated", t2, "observed", obs)},
		},
		{
			name:  "a file holding its own id but breaking the rules is replaced",
			files: map[string]string{a: `{"id":"a","title":"A","colour":"red"}`},
			recs:  []record.Record{rec("a", "A")},
			want:  Counts{Updated: 1},
			after: map[string]string{a: stored("a", "A", "observed", obs)},
		},
		{
			name:    "a misnamed file is never overwritten",
			files:   map[string]string{a: stored("b", "B")},
			recs:    []record.Record{rec("a", "A"), rec("c", "C")},
			wantErr: evidence(a, "record id does not match its SHA-256 filename; run bf validate and reconcile it"),
		},
		{
			name:    "a misnamed invalid file is never overwritten",
			files:   map[string]string{a: `{"id":"b","title":""}`},
			recs:    []record.Record{rec("a", "A")},
			wantErr: evidence(a, "record id does not match its SHA-256 filename"),
		},
		{
			name:    "an unparsable file is never overwritten",
			files:   map[string]string{a: `{"id":"a","title":`},
			recs:    []record.Record{rec("a", "A")},
			wantErr: evidence(a, "invalid JSON document"),
		},
		{
			name:    "an id given twice cannot be attributed",
			files:   map[string]string{a: `{"id":"a","id":"a","title":"A"}`},
			recs:    []record.Record{rec("a", "A")},
			wantErr: evidence(a, "id: JSON contains a duplicate key"),
		},
		{
			name:    "a symbolic link is never followed",
			files:   map[string]string{a: "->../elsewhere.json"},
			recs:    []record.Record{rec("a", "A")},
			wantErr: evidence(a, "is a symbolic link"),
		},
		{
			name:    "a folder in a record's place",
			files:   map[string]string{a + "/": ""},
			recs:    []record.Record{rec("a", "A")},
			wantErr: evidence(a, "is not a regular file"),
		},
		{
			name:  "window mode never removes",
			files: map[string]string{a: stored("a", "A", "observed", t1), b: stored("b", "B", "observed", t1)},
			recs:  []record.Record{rec("a", "A")},
			want:  Counts{Unchanged: 1},
		},
		{
			name:  "snapshot mode removes the other records, not other files",
			files: map[string]string{a: stored("a", "A", "observed", t1), b: stored("b", "B", "observed", t1), "notes.txt": "mine", "loose.json": stored("c", "C")},
			recs:  []record.Record{rec("a", "A"), rec("c", "C")},
			opt:   snapshot,
			want:  Counts{Added: 1, Unchanged: 1, Removed: 1},
			after: map[string]string{a: stored("a", "A", "observed", t1), c: stored("c", "C", "observed", obs), "notes.txt": "mine", "loose.json": stored("c", "C")},
		},
		{
			name:  "snapshot mode removes an invalid file that holds its own id",
			files: map[string]string{a: stored("a", "A", "observed", t1), b: `{"id":"b"}`},
			recs:  []record.Record{rec("a", "A")},
			opt:   snapshot,
			want:  Counts{Unchanged: 1, Removed: 1},
			after: map[string]string{a: stored("a", "A", "observed", t1)},
		},
		{
			name:    "snapshot mode never removes a misnamed file",
			files:   map[string]string{a: stored("a", "A", "observed", t1), b: stored("c", "C")},
			recs:    []record.Record{rec("a", "A"), rec("d", "D")},
			opt:     snapshot,
			wantErr: evidence(b, "record id does not match its SHA-256 filename; run bf validate and reconcile it"),
		},
		{
			name:    "guard: an empty snapshot of a source with records",
			files:   map[string]string{a: stored("a", "A")},
			opt:     snapshot,
			wantErr: "snapshot removal guard: the snapshot of mail returned no records and would remove all 1; nothing was changed; rerun `bf collect mail --allow-removal` if that is intended",
		},
		{
			name:  "guard lifted: an empty snapshot empties the source",
			files: map[string]string{a: stored("a", "A"), "notes.txt": "mine"},
			opt:   Options{Mode: config.ModeSnapshot, AllowRemoval: true},
			want:  Counts{Removed: 1},
			after: map[string]string{"notes.txt": "mine"},
		},
		{
			name:  "an empty snapshot of an empty source",
			files: map[string]string{"notes.txt": "mine"},
			opt:   snapshot,
		},
		{
			name:    "guard: more than half and more than 10",
			files:   files21,
			recs:    recs21[:10],
			opt:     snapshot,
			wantErr: guarded(11, 21),
		},
		{
			name:  "guard lifted: more than half and more than 10",
			files: files21,
			recs:  recs21[:10],
			opt:   Options{Mode: config.ModeSnapshot, AllowRemoval: true},
			want:  Counts{Unchanged: 10, Removed: 11},
			after: subset(files21, recs21[:10]),
		},
		{
			name:  "guard: exactly half is allowed",
			files: files22,
			recs:  recs22[:11],
			opt:   snapshot,
			want:  Counts{Unchanged: 11, Removed: 11},
			after: subset(files22, recs22[:11]),
		},
		{
			name:  "guard: 10 removals are allowed",
			files: files12,
			recs:  recs12[:2],
			opt:   snapshot,
			want:  Counts{Unchanged: 2, Removed: 10},
			after: subset(files12, recs12[:2]),
		},
		{
			name:    "duplicate ids in the batch",
			recs:    []record.Record{rec("a", "A"), rec("b", "B"), rec("a", "A2")},
			wantErr: "records 1 and 3 of the batch for memories/mail share an id; reconcile duplicate ids before collecting",
		},
		{
			name:    "an invalid record in the batch",
			files:   map[string]string{a: stored("a", "A")},
			recs:    []record.Record{rec("b", "B"), rec("c", "")},
			wantErr: "record 2 of the batch for memories/mail: title: must be 1-4,096 characters",
		},
		{
			name:    "an unknown mode",
			recs:    []record.Record{rec("a", "A")},
			opt:     Options{Mode: "full"},
			wantErr: `invalid collection mode "full" for source mail: use window or snapshot`,
		},
		{
			name:    "an invalid source name",
			source:  "../mail",
			recs:    []record.Record{rec("a", "A")},
			wantErr: `invalid source name "../mail": use a lowercase letter, then up to 63 lowercase letters, digits or hyphens`,
		},
		{
			name:  "temporary files of a killed write are swept",
			files: map[string]string{a: stored("a", "A"), ".write-" + hex32: "half"},
			recs:  []record.Record{rec("a", "A")},
			want:  Counts{Unchanged: 1},
			after: map[string]string{a: stored("a", "A")},
		},
		{
			name:       "a source folder may not grow past its entry limit",
			files:      map[string]string{a: stored("a", "A"), "notes.txt": "mine"},
			recs:       []record.Record{rec("a", "A"), rec("b", "B")},
			maxEntries: 2,
			wantErr:    "memories/mail would hold 3 entries, more than 2; split the source or remove stray files from it",
		},
		{
			name:       "a full source folder may still be updated",
			files:      map[string]string{a: stored("a", "A"), "notes.txt": "mine"},
			recs:       []record.Record{rec("a", "A2")},
			maxEntries: 2,
			want:       Counts{Updated: 1},
			after:      map[string]string{a: stored("a", "A2", "observed", obs), "notes.txt": "mine"},
		},
		{
			name:  "a mixed batch",
			files: map[string]string{a: stored("a", "A", "observed", t1), b: stored("b", "B", "observed", t1)},
			recs:  []record.Record{rec("a", "A"), rec("b", "B2"), rec("c", "C")},
			want:  Counts{Added: 1, Updated: 1, Unchanged: 1},
			after: map[string]string{a: stored("a", "A", "observed", t1), b: stored("b", "B2", "observed", obs), c: stored("c", "C", "observed", obs)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.maxEntries > 0 {
				defer func(n int) { maxEntries = n }(maxEntries)
				maxEntries = tt.maxEntries
			}
			source := tt.source
			if source == "" {
				source = "mail"
			}
			root := t.TempDir()
			before := map[string]string{}
			for name, s := range tt.files {
				before["memories/mail/"+name] = s
			}
			writeTree(t, root, before)
			src := filepath.Join(root, "memories", "mail")
			orig := tree(t, src)
			opt := tt.opt
			opt.Observed = observedAt
			ctx := context.Background()

			planned, err := Plan(ctx, root, source, tt.recs, opt)
			if errText(err) != tt.wantErr || planned != tt.want {
				t.Fatalf("Plan = %+v, %q; want %+v, %q", planned, errText(err), tt.want, tt.wantErr)
			}
			if diff := cmp.Diff(orig, tree(t, src)); diff != "" {
				t.Fatalf("Plan changed memories/mail (-before +after):\n%s", diff)
			}

			got, err := Commit(ctx, root, source, tt.recs, opt)
			if errText(err) != tt.wantErr || got != tt.want {
				t.Fatalf("Commit = %+v, %q; want %+v, %q", got, errText(err), tt.want, tt.wantErr)
			}
			want := tt.after
			if want == nil {
				want = maps.Clone(tt.files)
			}
			after := tree(t, src)
			ledger := splitLedger(t, after, "")
			if diff := cmp.Diff(want, after); diff != "" {
				t.Errorf("memories/mail after (-want +got):\n%s", diff)
			}
			records := maps.Clone(after)
			maps.DeleteFunc(records, func(name string, _ string) bool { return !record.ValidFileName(name) })
			checkConfirmed(t, ledger, tt.files, records)
			if _, err := os.Lstat(filepath.Join(root, "memories", ".pending")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("memories/.pending left behind: %v", err)
			}
		})
	}
}

// subset is the files of recs among files.
func subset(files map[string]string, recs []record.Record) map[string]string {
	out := map[string]string{}
	for _, r := range recs {
		out[fn(r.ID)] = files[fn(r.ID)]
	}
	return out
}

func TestCommitIsDurableOnDisk(t *testing.T) {
	// A commit into a brain without memories/ creates the folders and leaves only records.
	root := t.TempDir()
	got, err := Commit(context.Background(), root, "mail", []record.Record{rec("a", "A")}, Options{Observed: observedAt})
	if err != nil || got != (Counts{Added: 1}) {
		t.Fatalf("Commit = %+v, %v", got, err)
	}
	want := map[string]string{"mail/": "", "mail/" + fn("a"): stored("a", "A", "observed", obs)}
	got2 := tree(t, filepath.Join(root, "memories"))
	if l := splitLedger(t, got2, "mail/"); !l.Confirms(fn("a"), []byte(want["mail/"+fn("a")])) {
		t.Errorf("the ledger does not confirm the record written: %v", l)
	}
	if diff := cmp.Diff(want, got2); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
	st, err := os.Stat(filepath.Join(root, "memories", "mail", fn("a")))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("record mode = %v, %v; want 0644", st.Mode().Perm(), err)
	}
	st, err = os.Stat(filepath.Join(root, ".bf"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf(".bf mode = %v, %v; want 0700", st.Mode().Perm(), err)
	}
}

func TestLocking(t *testing.T) {
	tests := []struct {
		name      string
		exclusive bool // how another holder keeps .bf/reader.lock
		commit    string
		plan      string
	}{
		{"a reader refreshing the cache", false, errBusy.Error(), ""},
		{"another writer", true, errBusy.Error(), errBusy.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.Mkdir(filepath.Join(root, ".bf"), 0o700)
			held, err := lock.Acquire(context.Background(), filepath.Join(root, ".bf"), "reader.lock", tt.exclusive, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer held.Release()
			recs := []record.Record{rec("a", "A")}
			_, err = Commit(context.Background(), root, "mail", recs, Options{})
			if errText(err) != tt.commit {
				t.Errorf("Commit = %q, want %q", errText(err), tt.commit)
			}
			_, err = Plan(context.Background(), root, "mail", recs, Options{})
			if errText(err) != tt.plan {
				t.Errorf("Plan = %q, want %q", errText(err), tt.plan)
			}
			if err := Recover(context.Background(), root); err != nil {
				t.Errorf("Recover without a journal = %v", err)
			}
		})
	}
}

func TestStateDir(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(root string)
		wantErr string
	}{
		{"missing: created", func(string) {}, ""},
		{"loose mode is tightened", func(root string) { os.Mkdir(filepath.Join(root, ".bf"), 0o755) }, ""},
		{"symbolic link", func(root string) { os.Symlink(root, filepath.Join(root, ".bf")) },
			".bf is a symbolic link; remove it so bf can rebuild its own cache, then retry"},
		{"file", func(root string) { os.WriteFile(filepath.Join(root, ".bf"), nil, 0o600) },
			".bf is not a folder; remove it so bf can rebuild its own cache, then retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			tt.setup(root)
			_, err := Commit(context.Background(), root, "mail", []record.Record{rec("a", "A")}, Options{})
			if errText(err) != tt.wantErr {
				t.Fatalf("Commit = %q, want %q", errText(err), tt.wantErr)
			}
			if err == nil {
				st, _ := os.Lstat(filepath.Join(root, ".bf"))
				if st.Mode().Perm() != 0o700 {
					t.Errorf(".bf mode %v", st.Mode().Perm())
				}
			}
		})
	}
	t.Run("another user's folder", func(t *testing.T) {
		defer func() { geteuid = os.Geteuid }()
		geteuid = func() int { return os.Geteuid() + 1 }
		_, err := Commit(context.Background(), t.TempDir(), "mail", nil, Options{})
		if want := ".bf belongs to another user; remove it so bf can rebuild its own cache, then retry"; errText(err) != want {
			t.Errorf("Commit = %q, want %q", errText(err), want)
		}
	})
}

func TestFoldersAreNotFollowed(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		wantErr string
	}{
		{"memories is a link", map[string]string{"elsewhere/": "", "memories": "->elsewhere"},
			"memories is a symbolic link; bf writes records only into real folders inside the brain: replace it with a folder, then retry"},
		{"the source is a link", map[string]string{"elsewhere/": "", "memories/mail": "->../elsewhere"},
			"memories/mail is a symbolic link; bf writes records only into real folders inside the brain: replace it with a folder, then retry"},
		{"the source is a file", map[string]string{"memories/mail": "x"},
			"memories/mail is not a folder; move it away so bf can store records there, then retry"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, root, tt.files)
			_, err := Commit(context.Background(), root, "mail", []record.Record{rec("a", "A")}, Options{})
			if errText(err) != tt.wantErr {
				t.Fatalf("Commit = %q, want %q", errText(err), tt.wantErr)
			}
			if got := tree(t, filepath.Join(root, "elsewhere")); len(got) != 0 {
				t.Errorf("wrote through a link: %v", got)
			}
		})
	}
}

func TestBackups(t *testing.T) {
	exdev := func(o, n string) error { return &os.LinkError{Op: "link", Old: o, New: n, Err: syscall.EXDEV} }
	eacces := func(o, n string) error { return &os.LinkError{Op: "link", Old: o, New: n, Err: syscall.EACCES} }
	a := fn("a")
	tests := []struct {
		name     string
		link     func(o, n string) error
		sameNode bool // the backup is the replaced file's inode
		wantErr  string
	}{
		{name: "hard link", link: os.Link, sameNode: true},
		{name: "copy when the file system refuses links", link: exdev},
		{name: "other link failures fail the commit", link: eacces,
			wantErr: "cannot back up memories/mail/" + a + " into memories/.pending: permission denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() { link = os.Link; crashPoint = nil }()
			link = tt.link
			root := t.TempDir()
			old := stored("a", "A", "observed", t1)
			writeTree(t, root, map[string]string{"memories/mail/" + a: old})
			target := filepath.Join(root, "memories", "mail", a)
			targetSt, _ := os.Stat(target)
			checked := false
			crashPoint = func(s string) error {
				if s != "backup 0" {
					return nil
				}
				checked = true
				saved := filepath.Join(root, "memories", ".pending", "0.before")
				st, err := os.Stat(saved)
				if err != nil {
					t.Fatalf("backup: %v", err)
				}
				if os.SameFile(st, targetSt) != tt.sameNode {
					t.Errorf("backup shares the inode = %v, want %v", !tt.sameNode, tt.sameNode)
				}
				if b, _ := os.ReadFile(saved); string(b) != old {
					t.Errorf("backup holds %q", b)
				}
				return nil
			}
			got, err := Commit(context.Background(), root, "mail", []record.Record{rec("a", "B")}, Options{Observed: observedAt})
			if errText(err) != tt.wantErr {
				t.Fatalf("Commit = %+v, %q; want %q", got, errText(err), tt.wantErr)
			}
			want := map[string]string{a: stored("a", "B", "observed", obs)}
			if err != nil {
				want[a] = old
			} else if !checked {
				t.Error("no backup step")
			}
			got2 := tree(t, filepath.Join(root, "memories", "mail"))
			if l := splitLedger(t, got2, ""); l.Confirms(a, []byte(got2[a])) != (err == nil) {
				t.Errorf("the ledger confirms %s: %v, want %v", a, !(err == nil), err == nil)
			}
			if diff := cmp.Diff(want, got2); diff != "" {
				t.Errorf("memories/mail (-want +got):\n%s", diff)
			}
			if _, err := os.Lstat(filepath.Join(root, "memories", ".pending")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("memories/.pending left behind: %v", err)
			}
		})
	}
}

func TestCommitRecoversFirst(t *testing.T) {
	a, b := fn("a"), fn("b")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"memories/mail/" + a:              stored("a", "half written"),
		"memories/.pending/0.before":      stored("a", "A", "observed", t1),
		"memories/.pending/manifest.json": `{"changes":[{"existed":true,"name":"` + a + `"}],"complete":false,"source":"mail","version":1}`,
	})
	if _, err := Plan(context.Background(), root, "mail", nil, Options{}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Plan = %v, want ErrInterrupted", err)
	}
	got, err := Commit(context.Background(), root, "mail", []record.Record{rec("a", "A"), rec("b", "B")}, Options{Observed: observedAt})
	if err != nil || got != (Counts{Added: 1, Unchanged: 1}) {
		t.Fatalf("Commit = %+v, %v", got, err)
	}
	want := map[string]string{"mail/": "", "mail/" + a: stored("a", "A", "observed", t1), "mail/" + b: stored("b", "B", "observed", obs)}
	got2 := tree(t, filepath.Join(root, "memories"))
	// The recovered record was not written by this commit: only b is confirmed.
	if l := splitLedger(t, got2, "mail/"); l.Confirms(a, []byte(want["mail/"+a])) || !l.Confirms(b, []byte(want["mail/"+b])) {
		t.Errorf("ledger = %v", l)
	}
	if diff := cmp.Diff(want, got2); diff != "" {
		t.Errorf("memories (-want +got):\n%s", diff)
	}
}

func TestCommitCancelled(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The lock is free, so the first try takes it; the journal is never started.
	_, err := Commit(ctx, root, "mail", []record.Record{rec("a", "A")}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit = %v", err)
	}
	if got := tree(t, filepath.Join(root, "memories")); got != nil {
		t.Errorf("memories = %v", got)
	}
}

// A person adopts record files collection did not write: the ledger confirms their current
// bytes, in one transaction that changes no record; adopting again confirms nothing new.
func TestAdopt(t *testing.T) {
	a, b := fn("a"), fn("b")
	root := t.TempDir()
	files := map[string]string{"memories/mail/" + a: stored("a", "A"), "memories/mail/" + b: stored("b", "B"), "memories/mail/notes.txt": "mine"}
	writeTree(t, root, files)
	ctx := context.Background()
	if n, err := Adopt(ctx, root, "mail", []string{a}, 0); n != 1 || err != nil {
		t.Fatalf("Adopt(a) = %d, %v", n, err)
	}
	got := tree(t, filepath.Join(root, "memories"))
	l := splitLedger(t, got, "mail/")
	if !l.Confirms(a, []byte(files["memories/mail/"+a])) || l.Confirms(b, []byte(files["memories/mail/"+b])) {
		t.Errorf("after adopting a: %v", l)
	}
	if n, err := Adopt(ctx, root, "mail", nil, 0); n != 1 || err != nil {
		t.Fatalf("Adopt(all) = %d, %v", n, err)
	}
	if n, err := Adopt(ctx, root, "mail", nil, 0); n != 0 || err != nil {
		t.Fatalf("Adopt(all) again = %d, %v", n, err)
	}
	got = tree(t, filepath.Join(root, "memories"))
	l = splitLedger(t, got, "mail/")
	want := map[string]string{"mail/": ""}
	for k, v := range files {
		want[strings.TrimPrefix(k, "memories/")] = v
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records changed (-want +got):\n%s", diff)
	}
	if !l.Confirms(b, []byte(files["memories/mail/"+b])) {
		t.Errorf("b not confirmed: %v", l)
	}
	for _, tc := range []struct{ names []string }{{[]string{"notes.txt"}}, {[]string{fn("c")}}} {
		if _, err := Adopt(ctx, root, "mail", tc.names, 0); err == nil {
			t.Errorf("Adopt(%v) succeeded", tc.names)
		}
	}
}
