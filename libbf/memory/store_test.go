package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/timestamp"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	b := brainfix.New(t, brainfix.Spec{Name: "test"})
	// The store reads the machine from the process environment.
	t.Setenv("HOME", b.Env.Home)
	t.Setenv("XDG_STATE_HOME", filepath.Join(b.Env.Home, "state"))
	return &Store{Brain: b.Open(), Now: pinned(t, "2026-01-01T00:00:00Z")}
}

// pinned is a clock that always reads the instant at.
func pinned(tb testing.TB, at string) func() time.Time {
	tb.Helper()
	t, err := timestamp.Parse(at)
	if err != nil {
		tb.Fatal(err)
	}
	return func() time.Time { return t }
}

func memoryFiles(t *testing.T, s *Store) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(s.Brain.Root, Folder))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			out = append(out, e.Name())
		}
	}
	return out
}

// Two agents saving one title at once never make two notes: the lock and the re-read
// under it turn every later save into an update of the first.
func TestConcurrentRemember(t *testing.T) {
	s := newStore(t)
	const n = 8
	var wg sync.WaitGroup
	actions := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each goroutine opens its own store, as separate processes would.
			b, err := brain.Open(s.Brain.Root)
			if err != nil {
				errs[i] = err
				return
			}
			r, err := (&Store{Brain: b, Now: s.Now}).Remember(context.Background(), RememberRequest{Type: "fact", Title: "The queue drains at night", Body: "Nightly drain."})
			if err == nil {
				actions[i] = r.Action
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	created := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("save %d: %v", i, errs[i])
		}
		if actions[i] == "created" {
			created++
		}
	}
	if files := memoryFiles(t, s); created != 1 || len(files) != 1 {
		t.Fatalf("created %d, files %v", created, files)
	}
}

// The brief never exceeds its limit, and rules beyond twenty are counted on a line.
func TestBriefRules(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for i := range 23 {
		if _, err := s.Remember(ctx, RememberRequest{Type: "policy", Title: fmt.Sprintf("Rule %02d", i), Body: "Always.", Reviewed: true}); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Brief(ctx, BriefRequest{Bytes: DefaultBriefBytes})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Brief, "+3 more rules not shown (3 beyond the first twenty): bf recall --type policy,constraint --order importance --offset 20 --limit 50 --no-touch --scope global\n") || strings.Count(b.Brief, "- Rule ") != 20 {
		t.Fatalf("brief:\n%s", b.Brief)
	}
	for limit := minBriefBytes; limit <= 3000; limit += 97 {
		b, err := s.Brief(ctx, BriefRequest{Bytes: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Brief) > limit || b.Bytes != len(b.Brief) {
			t.Fatalf("limit %d: %d bytes", limit, len(b.Brief))
		}
		if len(b.Cut) > 0 && !strings.Contains(b.Brief, "Cut for size: ") {
			t.Fatalf("limit %d: cut %v not named:\n%s", limit, b.Cut, b.Brief)
		}
	}
}

// Recall never writes the note: usage counts live in the state folder.
func TestRecallLeavesNotesAlone(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	r, err := s.Remember(ctx, RememberRequest{Type: "fact", Title: "Ledger closes monthly", Body: "On the first."})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(s.Brain.Root, r.Ref)
	before, _ := os.ReadFile(file)
	for range 3 {
		if _, err := s.Recall(ctx, RecallRequest{Limit: 10}); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := os.ReadFile(file)
	uses, err := s.Uses()
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) || uses[r.Ref] != 3 {
		t.Fatalf("note changed %v, uses %v", string(before) != string(after), uses)
	}
}

// What an agent saves is unreviewed until a person reviews it; a person saving with
// Reviewed states it at once; an agent's later change makes it unreviewed again, and only
// the marker records it.
func TestRememberProvenance(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	type step struct {
		req            RememberRequest
		action         string
		unreviewed     bool
		saysUnreviewed bool
	}
	title := "The build box is ci-7"
	for i, st := range []step{
		{RememberRequest{Type: "infra", Title: title, Body: "ci-7 runs builds.", NoReview: true}, "created", true, true},
		{RememberRequest{Type: "infra", Title: title, Body: "ci-7 runs builds.", NoReview: true, Reviewed: true}, "updated", false, false},
		// The same save by an agent changes nothing: the person's review stands.
		{RememberRequest{Type: "infra", Title: title, Body: "ci-7 runs builds.", NoReview: true}, "unchanged", false, false},
		{RememberRequest{Type: "infra", Title: title, Body: "ci-8 runs builds.", NoReview: true, Update: true}, "updated", true, true},
	} {
		r, err := s.Remember(ctx, st.req)
		if err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
		data, err := os.ReadFile(filepath.Join(s.Brain.Root, r.Ref))
		if err != nil {
			t.Fatal(err)
		}
		marked := strings.Contains(string(data), "\nreview: \"unreviewed\"\n")
		said := strings.Contains(strings.Join(r.Said, "\n"), "bf review --accept "+r.Ref)
		if r.Action != st.action || r.Unreviewed != st.unreviewed || marked != st.unreviewed || said != st.saysUnreviewed {
			t.Errorf("save %d: action %s unreviewed %v marked %v said %v, want %s %v %v %v\n%s",
				i, r.Action, r.Unreviewed, marked, said, st.action, st.unreviewed, st.unreviewed, st.saysUnreviewed, data)
		}
		l, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if m := l.ByRef[r.Ref]; m == nil || m.Unreviewed != st.unreviewed {
			t.Errorf("save %d: loaded %+v", i, m)
		}
	}
}
