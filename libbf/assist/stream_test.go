package assist

import (
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/queue"
)

// The first start of a stream is the same instant on every run, the first included,
// though the clock holds microseconds the queue does not keep.
func TestStreamSinceKeepsItsInstant(t *testing.T) {
	q, err := queue.Open(t.TempDir(), queue.Binding{Path: "/brain", Name: "brain"}, queue.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	first, err := streamSince(q, "chat", time.Date(2026, 10, 16, 9, 0, 0, 123456789, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	again, err := streamSince(q, "chat", time.Date(2026, 10, 17, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 10, 16, 9, 0, 0, 123000000, time.UTC)
	if !first.Equal(want) || !again.Equal(want) {
		t.Fatalf("since: first run %s, restart %s; want %s both times", first, again, want)
	}
}
