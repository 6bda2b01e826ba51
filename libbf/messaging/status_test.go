package messaging

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"

	"github.com/bfgo/bf/libbf/queue"
	"github.com/bfgo/bf/libbf/reply"
)

func TestBlockAbsent(t *testing.T) {
	f := newFixture(t, true)
	f.WriteMode("bf.yaml", "version: 8\nname: ops\n", 0o644)
	block, healthy, err := f.opts.Block(context.Background(), f.Open())
	if block != nil || !healthy || err != nil {
		t.Errorf("Block = %v, %v, %v; want no block", block, healthy, err)
	}
}

func TestBlock(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	block, healthy, err := f.opts.Block(ctx, f.Open())
	if err != nil || !healthy {
		t.Fatalf("Block = %v, %v", healthy, err)
	}
	got, _ := json.Marshal(block)
	want := `{"channels":{"chat":{"capabilities":["send","read","stream"],"deliveries":{},"unresolved":[]},` +
		`"gone":{"capabilities":["send"],"deliveries":{},"unresolved":[]},` +
		`"mute":{"capabilities":["read"],"deliveries":{},"unresolved":[]},` +
		`"plain":{"capabilities":["send"],"deliveries":{},"unresolved":[]}},"healthy":true,"problems":[]}`
	if string(got) != want {
		t.Errorf("block without a queue:\n%s\nwant\n%s", got, want)
	}

	f.send("chat", `{"id":"a","text":"fine"}`)
	block, healthy, _ = f.opts.Block(ctx, f.Open())
	if !healthy || block.(*StatusBlock).Queue.Deliveries[queue.Delivered] != 1 {
		t.Errorf("after a delivery: healthy %v, %+v", healthy, block)
	}

	f.send("plain", `{"id":"b","text":"fail"}`)
	block, healthy, _ = f.opts.Block(ctx, f.Open())
	b := block.(*StatusBlock)
	if healthy || b.Healthy {
		t.Errorf("an uncertain delivery left messaging healthy")
	}
	plain := b.Channels["plain"]
	if len(plain.Unresolved) != 1 || plain.Unresolved[0].ID != "b" || plain.Unresolved[0].State != queue.Uncertain ||
		plain.Unresolved[0].Error == "" || plain.Deliveries[queue.Uncertain] != 1 {
		t.Errorf("plain = %+v", plain)
	}
	if b.Queue.Oldest == nil || b.Queue.Oldest.ID != "b" || b.Queue.Unresolved != 1 || len(b.Queue.Attention) != 1 {
		t.Errorf("queue = %+v", b.Queue)
	}

	// A delivery of a channel no longer declared still shows.
	f.WriteMode("bf.yaml", "version: 8\nname: ops\n", 0o644)
	block, healthy, _ = f.opts.Block(ctx, f.Open())
	b = block.(*StatusBlock)
	if healthy || len(b.Channels) != 2 || len(b.Channels["plain"].Capabilities) != 0 || len(b.Channels["plain"].Unresolved) != 1 {
		t.Errorf("removed channel: %+v", b.Channels)
	}

	// Cancelling resolves it.
	if _, err := f.opts.Cancel(ctx, f.Open(), "b"); err != nil {
		t.Fatal(err)
	}
	if _, healthy, _ = f.opts.Block(ctx, f.Open()); !healthy {
		t.Errorf("still unhealthy after cancelling")
	}
}

// leaveHotJournal copies the brain's queue, with its rollback journal, in the middle of a
// write transaction whose pages already reached the file: the copy is the queue of a
// process killed inside its commit.
func leaveHotJournal(t *testing.T, dir string) {
	t.Helper()
	file := filepath.Join(dir, queue.FileName)
	db, err := sql.Open("sqlite", "file:"+file+"?_pragma=cache_size(2)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("UPDATE deliveries SET body = zeroblob(200000), state = 'cancelled'"); err != nil {
		t.Fatal(err)
	}
	saved := t.TempDir()
	for _, name := range []string{queue.FileName, queue.FileName + "-journal"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("the transaction left no %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(saved, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tx.Rollback()
	db.Close()
	for _, name := range []string{queue.FileName, queue.FileName + "-journal"} {
		data, _ := os.ReadFile(filepath.Join(saved, name))
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBlockInterruptedWrite(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.send("plain", `{"id":"a","text":"fine"}`)
	f.send("plain", `{"id":"b","text":"keep me"}`)
	leaveHotJournal(t, f.stateDir())

	block, healthy, err := f.opts.Block(ctx, f.Open())
	if err != nil || healthy {
		t.Fatalf("Block = %v, %v", healthy, err)
	}
	b := block.(*StatusBlock)
	want := []reply.Problem{{Error: "assistant queue holds an interrupted write; run bf queue to recover it"}}
	if diff := cmp.Diff(want, b.Problems); diff != "" || b.Queue != nil {
		t.Errorf("problems (-want +got):\n%s\nqueue %+v", diff, b.Queue)
	}

	// bf queue rolls the write back: nothing the killed write touched is lost.
	if diff := cmp.Diff(map[string]queue.State{"a": queue.Delivered, "b": queue.Delivered}, f.states()); diff != "" {
		t.Errorf("queue after recovery (-want +got):\n%s", diff)
	}
	if _, err := os.Lstat(filepath.Join(f.stateDir(), queue.FileName+"-journal")); !os.IsNotExist(err) {
		t.Errorf("the journal is still there: %v", err)
	}
	d, err := f.opts.Get(ctx, f.Open(), "b")
	if err != nil || d.Text == nil || *d.Text != "keep me" {
		t.Errorf("b = %+v, %v", d, err)
	}
	if _, healthy, _ := f.opts.Block(ctx, f.Open()); !healthy {
		t.Errorf("still unhealthy after recovery")
	}
}

func TestBlockRefusedFormats(t *testing.T) {
	for _, tt := range []struct {
		name, ddl, msg string
	}{
		{"old", "PRAGMA user_version = 1; CREATE TABLE jobs (id TEXT)",
			"assistant queue predates this release; preserve it and follow the upgrade steps in the changelog"},
		{"other", "PRAGMA application_id = 7; PRAGMA user_version = 3; CREATE TABLE x (a)",
			"unexpected assistant queue schema; preserve it and repair it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, true)
			file := filepath.Join(f.stateDir(), queue.FileName)
			db, err := sql.Open("sqlite", "file:"+file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(tt.ddl); err != nil {
				t.Fatal(err)
			}
			db.Close()
			block, healthy, err := f.opts.Block(context.Background(), f.Open())
			if err != nil || healthy {
				t.Fatalf("Block = %v, %v", healthy, err)
			}
			if diff := cmp.Diff([]reply.Problem{{Error: tt.msg}}, block.(*StatusBlock).Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			// Commands refuse it too, and leave the file alone.
			if _, err := f.opts.List(context.Background(), f.Open()); err == nil || err.Error() != tt.msg {
				t.Errorf("list: %v", err)
			}
			if _, err := f.send("plain", `{"text":"x"}`); err == nil || err.Error() != tt.msg {
				t.Errorf("send: %v", err)
			}
		})
	}
}

func TestBlockRebind(t *testing.T) {
	f := newFixture(t, true)
	ctx := context.Background()
	f.send("plain", `{"id":"b","text":"fail"}`)
	// A rename keeps the brain's physical identity, so its queue, bound to the old path.
	moved := filepath.Join(filepath.Dir(f.Root), "moved")
	if err := os.Rename(f.Root, moved); err != nil {
		t.Fatal(err)
	}
	f.Root = moved
	block, healthy, err := f.opts.Block(ctx, f.Open())
	if err != nil || healthy {
		t.Fatalf("Block = %v, %v", healthy, err)
	}
	b := block.(*StatusBlock)
	if len(b.Problems) != 1 || !errors.Is(queueErr(b.Problems[0].Error), queue.ErrRebind) || b.Queue == nil || b.Queue.Unresolved != 1 {
		t.Errorf("block = %+v", b)
	}
	if _, err := f.opts.List(ctx, f.Open()); !errors.Is(err, queue.ErrRebind) {
		t.Errorf("list after the move: %v", err)
	}
}

// queueErr recognises the rebind sentence by its start.
func queueErr(msg string) error {
	const prefix = "assistant queue holds unresolved work admitted under this brain's previous path or name; "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return queue.ErrRebind
	}
	return errors.New(msg)
}
