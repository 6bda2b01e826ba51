package queue

import (
	"slices"
	"testing"
	"time"
)

func mustJob(t *testing.T, q *Queue, j NewJob) {
	t.Helper()
	if j.MaxBytes == 0 {
		j.MaxBytes = 1024
	}
	if _, _, err := q.AdmitJob(j); err != nil {
		t.Fatal(err)
	}
}

func mustReady(t *testing.T, q *Queue, want ...string) {
	t.Helper()
	got, err := q.Ready()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Ready = %v, want %v", got, want)
	}
}

func TestReadyHoldsConversations(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	mustJob(t, q, NewJob{ID: "a1", Assistant: "bot", Kind: "message", Channel: "chat", Conversation: "a"})
	mustJob(t, q, NewJob{ID: "b1", Assistant: "bot", Kind: "message", Channel: "chat", Conversation: "b"})
	c.Add(time.Millisecond)
	mustJob(t, q, NewJob{ID: "a2", Assistant: "bot", Kind: "message", Channel: "chat", Conversation: "a"})
	mustJob(t, q, NewJob{ID: "r1", Assistant: "bot", Kind: "run"})
	mustJob(t, q, NewJob{ID: "r2", Assistant: "bot", Kind: "run"})
	// a2 waits behind a1; run jobs never hold each other.
	mustReady(t, q, "a1", "b1", "r1", "r2")
	run, err := q.StartJob("a1", JobConfig{})
	if err != nil {
		t.Fatal(err)
	}
	mustReady(t, q, "b1", "r1", "r2")
	// A failure holds the conversation until the user resolves it.
	if _, err := run.Fail("harness failed"); err != nil {
		t.Fatal(err)
	}
	mustReady(t, q, "b1", "r1", "r2")
	if _, err := q.Cancel("a1"); err != nil {
		t.Fatal(err)
	}
	mustReady(t, q, "b1", "a2", "r1", "r2")
}

func TestFailRetrying(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	mustJob(t, q, NewJob{ID: "s1", Assistant: "bot", Kind: "schedule", Schedule: "daily"})
	for n, wait := range []time.Duration{5 * time.Second, 10 * time.Second} {
		run, err := q.StartJob("s1", JobConfig{})
		if err != nil {
			t.Fatal(err)
		}
		it, err := run.FailRetrying("harness failed", 3)
		if err != nil {
			t.Fatal(err)
		}
		if it.State != Pending || it.Error != "harness failed" {
			t.Fatalf("attempt %d: %s %q", n+1, it.State, it.Error)
		}
		c.Add(wait - time.Millisecond)
		mustReady(t, q)
		c.Add(time.Millisecond)
		mustReady(t, q, "s1")
	}
	run, err := q.StartJob("s1", JobConfig{})
	if err != nil {
		t.Fatal(err)
	}
	it, err := run.FailRetrying("harness failed", 3)
	if err != nil {
		t.Fatal(err)
	}
	if it.State != Failed || it.Error != "harness failed; stopped retrying after 3 attempts; retry or cancel it with bf queue" {
		t.Fatalf("last attempt: %s %q", it.State, it.Error)
	}
	// --retry starts the budget over; the count shown keeps every attempt made.
	if it, err = q.Retry("s1"); err != nil || it.State != Pending || it.Attempts != 3 {
		t.Fatalf("retry: %+v %v", it, err)
	}
	mustReady(t, q, "s1")
}

func TestJobBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 5 * time.Second, 2: 10 * time.Second, 3: 20 * time.Second, 6: 160 * time.Second, 7: 300 * time.Second, 30: 300 * time.Second} {
		if got := jobBackoff(n); got != want {
			t.Errorf("JobBackoff(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestMarks(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	wake := epoch.Add(time.Hour)
	mustJob(t, q, NewJob{ID: "w0", Assistant: "bot", Kind: "run"})
	run, err := q.StartJob("w0", JobConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.AnswerMarked([]byte("hi"), Mark{Name: "wake:bot:default", Progress: Progress{Position: wake}}); err != nil {
		t.Fatal(err)
	}
	marks, err := q.Checkpoints("wake:bot:")
	if err != nil || !marks["wake:bot:default"].Position.Equal(wake) || len(marks) != 1 {
		t.Fatalf("marks %v %v", marks, err)
	}
	// Admitting the wake's job clears its mark in the same transaction; again changes nothing.
	c.Add(time.Hour)
	for i := range 2 {
		_, added, err := q.AdmitJobMarked(NewJob{ID: "w1", Assistant: "bot", Kind: "wake", Schedule: "default", MaxBytes: 10},
			Mark{Name: "wake:bot:default"})
		if err != nil || added != (i == 0) {
			t.Fatalf("admission %d: added %v, %v", i, added, err)
		}
	}
	if marks, _ := q.Checkpoints("wake:"); len(marks) != 0 {
		t.Fatalf("marks after the wake: %v", marks)
	}
}

func TestRequeueInterrupted(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	mustJob(t, q, NewJob{ID: "s1", Assistant: "bot", Kind: "schedule"})
	run, err := q.StartJob("s1", JobConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Interrupt(); err != nil {
		t.Fatal(err)
	}
	if ok, err := q.Requeue("s1", 1); ok || err != nil {
		t.Fatalf("requeue past the budget: %v %v", ok, err)
	}
	if ok, err := q.Requeue("s1", 2); !ok || err != nil {
		t.Fatalf("requeue: %v %v", ok, err)
	}
	// It waits the backoff after its interrupted attempt.
	mustReady(t, q)
	c.Add(jobFirstBackoff)
	mustReady(t, q, "s1")
}

func TestConversation(t *testing.T) {
	q, c, _ := openTest(t, Options{})
	msg := func(id string, at time.Time, text string) Message {
		return Message{ID: id, Sender: "me", Conversation: "week", Time: at, Text: text}
	}
	if _, err := q.AdmitMessages(Batch{Channel: "chat", Input: "read:chat", Messages: []Message{
		msg("m1", epoch, "first"), msg("m2", epoch.Add(time.Second), "second"), msg("m3", epoch.Add(2*time.Second), "third"),
	}}); err != nil {
		t.Fatal(err)
	}
	c.Add(time.Second)
	turns, err := q.Conversation("chat", "week", epoch.Add(2*time.Second), 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 || turns[0].Text != "first" || turns[1].Text != "second" {
		t.Fatalf("turns %+v", turns)
	}
	if turns, _ := q.Conversation("chat", "week", epoch.Add(2*time.Second), 1); len(turns) != 1 || turns[0].Text != "second" {
		t.Fatalf("limited turns %+v", turns)
	}
}
