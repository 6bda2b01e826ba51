package channel

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
)

// The bf.yaml snippet of docs/channels.md loads as written, and its inbox channel reads,
// sends and streams through the example adapter.
func TestDocumentedInboxChannel(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	doc, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "docs", "channels.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```yaml\n(channels:\n.*?)```").FindSubmatch(doc)
	if block == nil {
		t.Fatal("docs/channels.md has no channels: snippet")
	}
	root := t.TempDir()
	inboxAdapter(t, root)
	cfg, err := config.Parse(filepath.Join(root, "bf.yaml"), append([]byte("version: 8\nname: demo\n"), block[1]...))
	if err != nil {
		t.Fatalf("the documented snippet does not load: %v", err)
	}
	e, err := Open(&brain.Brain{Name: "demo", Root: root, Config: cfg}, root, "inbox")
	if err != nil {
		t.Fatal(err)
	}
	brainfix.WriteFile(t, root, "inbox/m1.json", []byte(`{"sender":"me","conversation":"week","time":"2026-10-16T09:00:00Z","text":"What needs my attention?"}`), 0o644)
	brainfix.WriteFile(t, root, "inbox/x.json", []byte(`{"sender":"someone","conversation":"week","time":"2026-10-16T09:00:00Z","text":"hi"}`), 0o644)
	msgs, err := e.Read(context.Background(), t0.Add(-9*time.Hour), t0.Add(15*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 1 || msgs[0].ID != "m1" || msgs[0].Sender != "me" {
		t.Fatalf("read = %+v, want m1 from me alone", msgs)
	}
	r, err := e.Send(context.Background(), Outgoing{ID: "d-1", Text: "Nothing urgent.", Conversation: "week", ReplyTo: "m1"})
	if err != nil || r.Conversation != "week" {
		t.Fatalf("send = %+v, %v", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []string
	err = e.Stream(ctx, StreamOptions{Since: t0.Add(-time.Hour), Clock: newClock(), Commit: func(_ context.Context, m Message, cursor string) error {
		got = append(got, m.ID+" "+cursor)
		cancel()
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "m1 2026-10-16T09:00:00.000000Z m1"; len(got) != 1 || got[0] != want {
		t.Errorf("streamed %v, want [%s]", got, want)
	}
}
