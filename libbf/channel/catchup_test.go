package channel

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeSource is a read adapter over messages held in memory, enforcing the batch limit
// like parseBatch does.
type fakeSource struct {
	msgs  []Message // oldest first
	reads []span
	fail  error // returned by every read once set
}

// span is a window relative to t0, in seconds, so expectations read easily.
type span struct{ From, To float64 }

func rel(t time.Time) float64 { return t.Sub(t0).Seconds() }

func (f *fakeSource) read(_ context.Context, start, end time.Time) ([]Message, error) {
	f.reads = append(f.reads, span{rel(start), rel(end)})
	if f.fail != nil {
		return nil, f.fail
	}
	lo := sort.Search(len(f.msgs), func(i int) bool { return !f.msgs[i].Time.Before(start) })
	hi := sort.Search(len(f.msgs), func(i int) bool { return !f.msgs[i].Time.Before(end) })
	if hi-lo > maxBatch {
		return nil, fmt.Errorf("fake: %w", errTooMany)
	}
	return append([]Message(nil), f.msgs[lo:hi]...), nil
}

// source holds one message at each offset, given in seconds.
func source(offsets ...float64) *fakeSource {
	f := &fakeSource{}
	for i, o := range offsets {
		f.msgs = append(f.msgs, Message{ID: fmt.Sprintf("m%05d", i), Sender: "s", Conversation: "c",
			Time: t0.Add(time.Duration(o * float64(time.Second))), Text: "t"})
	}
	sort.SliceStable(f.msgs, func(i, j int) bool { return f.msgs[i].Time.Before(f.msgs[j].Time) })
	return f
}

// spread returns n offsets evenly placed in [from, to).
func spread(n int, from, to float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + (to-from)*float64(i)/float64(n)
	}
	return out
}

// admitted records what Poll handed to admit.
type admitted struct {
	count map[string]int
	fail  error // returned by admit once set
	ends  []float64
}

func (a *admitted) admit(_ context.Context, msgs []Message, end time.Time) error {
	if a.fail != nil {
		return a.fail
	}
	if a.count == nil {
		a.count = map[string]int{}
	}
	for _, m := range msgs {
		a.count[m.ID]++
	}
	a.ends = append(a.ends, rel(end))
	return nil
}

func TestPoll(t *testing.T) {
	tests := []struct {
		name   string
		src    *fakeSource
		window Window
		reads  []span
		ends   []float64
		want   PollResult
		err    string
	}{
		{name: "fits at once, with the overlap",
			src:    source(-40, -10, 5, 59),
			window: Window{Checkpoint: t0, End: t0.Add(time.Minute), Overlap: ReadOverlap},
			reads:  []span{{-30, 60}}, ends: []float64{60},
			want: PollResult{Parts: 1, Messages: 3, Checkpoint: t0.Add(time.Minute)}},
		{name: "nothing to read",
			src:    source(),
			window: Window{Checkpoint: t0, End: t0, Overlap: ReadOverlap},
			want:   PollResult{Checkpoint: t0}},
		{name: "backlog: halve from the checkpoint, then double",
			src:    source(spread(1500, 0, 16)...),
			window: Window{Checkpoint: t0, End: t0.Add(64 * time.Second), Overlap: ReadOverlap},
			reads:  []span{{-30, 64}, {0, 64}, {0, 32}, {0, 16}, {0, 8}, {8, 24}, {24, 56}, {56, 64}},
			ends:   []float64{8, 24, 56, 64},
			want:   PollResult{Parts: 4, Messages: 1500, Checkpoint: t0.Add(64 * time.Second)}},
		{name: "a doubled part too large halves again",
			src:    source(append(spread(600, 0, 1), spread(1200, 1, 3)...)...),
			window: Window{Checkpoint: t0, End: t0.Add(4 * time.Second)},
			reads:  []span{{0, 4}, {0, 4}, {0, 2}, {0, 1}, {1, 3}, {1, 2}, {2, 4}},
			ends:   []float64{1, 2, 4},
			want:   PollResult{Parts: 3, Messages: 1800, Checkpoint: t0.Add(4 * time.Second)}},
		{name: "halving stops at one second",
			src:    source(spread(1001, 0.25, 0.75)...),
			window: Window{Checkpoint: t0, End: t0.Add(3 * time.Second)},
			reads:  []span{{0, 3}, {0, 3}, {0, 1.5}, {0, 1}},
			err:    "channel chat: more than 1000 messages fall within one second; read them with a stream input",
			want:   PollResult{Checkpoint: t0}},
		{name: "parts admitted before a dense second are kept",
			src:    source(append(spread(900, 0, 4), spread(1001, 4, 4.5)...)...),
			window: Window{Checkpoint: t0, End: t0.Add(8 * time.Second)},
			reads:  []span{{0, 8}, {0, 8}, {0, 4}, {4, 8}, {4, 6}, {4, 5}},
			ends:   []float64{4},
			err:    "channel chat: more than 1000 messages fall within one second; read them with a stream input",
			want:   PollResult{Parts: 1, Messages: 900, Checkpoint: t0.Add(4 * time.Second)}},
		{name: "the last part may be shorter than a second",
			src:    source(append(spread(1000, 0, 2), 2.1)...),
			window: Window{Checkpoint: t0, End: t0.Add(2500 * time.Millisecond)},
			reads:  []span{{0, 2.5}, {0, 2.5}, {0, 1.25}, {1.25, 2.5}},
			ends:   []float64{1.25, 2.5},
			want:   PollResult{Parts: 2, Messages: 1001, Checkpoint: t0.Add(2500 * time.Millisecond)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &admitted{}
			got, err := Poll(context.Background(), "chat", tc.window, tc.src.read, a.admit)
			if errText(err) != tc.err {
				t.Fatalf("error = %v, want %q", err, tc.err)
			}
			if tc.err != "" && !errors.Is(err, errTooDense) {
				t.Errorf("error does not match ErrTooDense")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.reads, tc.src.reads); diff != "" {
				t.Errorf("reads (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.ends, a.ends); diff != "" {
				t.Errorf("checkpoints (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPollFailures(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name      string
		readFail  error
		admitFail error
		want      PollResult
	}{
		{"read fails", boom, nil, PollResult{Checkpoint: t0}},
		{"admit fails", nil, boom, PollResult{Checkpoint: t0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := source(1, 2)
			src.fail = tc.readFail
			a := &admitted{fail: tc.admitFail}
			got, err := Poll(context.Background(), "chat", Window{Checkpoint: t0, End: t0.Add(time.Minute)}, src.read, a.admit)
			if !errors.Is(err, boom) {
				t.Fatalf("error = %v, want boom", err)
			}
			if got != tc.want {
				t.Errorf("result = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPollCanceledBetweenParts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	src := source(spread(3000, 0, 30)...)
	a := &admitted{}
	admit := func(ctx context.Context, msgs []Message, end time.Time) error {
		cancel() // after the first part
		return a.admit(ctx, msgs, end)
	}
	got, err := Poll(ctx, "chat", Window{Checkpoint: t0, End: t0.Add(32 * time.Second)}, src.read, admit)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	want := PollResult{Parts: 1, Messages: 800, Checkpoint: t0.Add(8 * time.Second)}
	if got != want {
		t.Errorf("result = %+v, want %+v", got, want)
	}
}

// A fake adapter holding 10,000 messages, most of them in bursts, is caught up in parts
// over several polls: every message is admitted once (again only in a later poll's
// overlap), no read returns more than a batch, each poll admits at most 16 parts, and the checkpoint only moves forward.
func TestPollCatchesUpTenThousand(t *testing.T) {
	var offsets []float64
	offsets = append(offsets, spread(7000, 0, 3600)...)     // a busy hour
	offsets = append(offsets, spread(2000, 3600, 3630)...)  // a 30-second burst
	offsets = append(offsets, spread(500, 3630, 7200)...)   // a quiet hour
	offsets = append(offsets, spread(500, 7200, 7200.9)...) // a burst within a second
	src := source(offsets...)
	if len(src.msgs) != 10000 {
		t.Fatalf("fake holds %d messages", len(src.msgs))
	}
	end := t0.Add(7300 * time.Second)
	a := &admitted{}
	cp := t0
	var polls []PollResult
	var starts []time.Time
	for len(polls) < 100 {
		if len(polls) > 0 {
			starts = append(starts, cp)
		}
		res, err := Poll(context.Background(), "chat", Window{Checkpoint: cp, End: end, Overlap: ReadOverlap}, src.read, a.admit)
		if err != nil {
			t.Fatal(err)
		}
		polls = append(polls, res)
		if res.Parts > maxParts {
			t.Fatalf("poll %d admitted %d parts", len(polls), res.Parts)
		}
		if res.Checkpoint.Before(cp) {
			t.Fatalf("poll %d moved the checkpoint back", len(polls))
		}
		cp = res.Checkpoint
		if !res.Backlog {
			break
		}
	}
	if !cp.Equal(end) {
		t.Fatalf("caught up to %v, want %v", rel(cp), rel(end))
	}
	if len(a.count) != 10000 {
		t.Errorf("admitted %d distinct messages, want 10000", len(a.count))
	}
	// A message comes twice only through a later poll's overlap, which the queue
	// deduplicates by ID.
	for _, m := range src.msgs {
		n := a.count[m.ID]
		overlapped := 0
		for _, start := range starts {
			if !m.Time.Before(start.Add(-ReadOverlap)) && m.Time.Before(start) {
				overlapped++
			}
		}
		if n != 1+overlapped {
			t.Errorf("message %s admitted %d times, want %d", m.ID, n, 1+overlapped)
		}
	}
	var parts int
	backlogged := 0
	for _, p := range polls {
		parts += p.Parts
		if p.Backlog {
			backlogged++
			if p.Parts != maxParts {
				t.Errorf("a poll that left a backlog admitted %d parts, want %d", p.Parts, maxParts)
			}
		}
	}
	if parts != len(a.ends) {
		t.Errorf("polls report %d parts, admit saw %d", parts, len(a.ends))
	}
	if backlogged == 0 {
		t.Errorf("the backlog was caught up in one poll; the test needs more than %d parts", maxParts)
	}
	// Parts are contiguous: each starts where the previous ended.
	prev := 0.0
	for i, e := range a.ends {
		if e <= prev {
			t.Fatalf("part %d ends at %v, not after %v", i, e, prev)
		}
		prev = e
	}
	// The schedule is deterministic: 16 parts, then the rest in a second poll.
	if len(polls) != 2 || parts != 17 {
		t.Errorf("caught up in %d polls and %d parts, want 2 and 17", len(polls), parts)
	}
}
