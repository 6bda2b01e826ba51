package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/cache"
)

// writeMany writes n memory notes as bf remember would, without its guards.
func writeMany(b testing.TB, s *Store, n int) {
	b.Helper()
	if err := s.DeclareFields(); err != nil {
		b.Fatal(err)
	}
	start := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		m := &Memory{Ref: fmt.Sprintf("%s/m%05d.md", Folder, i), Title: fmt.Sprintf("memory number %d about the deploy queue and its workers", i),
			Body: "The workers drain the deploy queue every night; a stuck job blocks the rest until someone restarts it.",
			Type: "fact", Importance: 3, Confidence: Reported, Trust: DefaultTrust, Scope: DefaultScope, Saved: start.Add(time.Duration(i) * time.Minute)}
		if err := s.Write(m); err != nil {
			b.Fatal(err)
		}
		// Saved a while ago, as in a brain in use (a parse younger than racyWindow is not kept).
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(filepath.Join(s.Brain.Root, m.Ref), old, old); err != nil {
			b.Fatal(err)
		}
	}
}

func benchStore(b *testing.B, n int) *Store {
	s := newStoreTB(b)
	writeMany(b, s, n)
	return s
}

func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := benchStore(b, n)
			if _, err := s.Load(); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := s.Load(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRemember(b *testing.B) {
	s := benchStore(b, 5000)
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Remember(context.Background(), RememberRequest{Type: "fact", Title: fmt.Sprintf("saved%[1]d in%[1]d the%[1]d benchmark%[1]d run%[1]d", i), Body: "x"}); err != nil {
			b.Fatal(err)
		}
	}
}

func newStoreTB(tb testing.TB) *Store {
	tb.Helper()
	b := brainfix.New(tb, brainfix.Spec{Name: "test"})
	tb.Setenv("HOME", b.Env.Home)
	tb.Setenv("XDG_STATE_HOME", filepath.Join(b.Env.Home, "state"))
	return &Store{Brain: b.Open(), Now: pinned(tb, "2026-01-01T00:00:00Z")}
}

func BenchmarkRecall(b *testing.B) {
	s := benchStore(b, 5000)
	if _, err := cache.Build(context.Background(), s.Brain, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Recall(context.Background(), RecallRequest{Query: "stuck deploy queue", Limit: 10, NoTouch: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBrief(b *testing.B) {
	s := benchStore(b, 5000)
	for b.Loop() {
		if _, err := s.Brief(context.Background(), BriefRequest{Bytes: DefaultBriefBytes}); err != nil {
			b.Fatal(err)
		}
	}
}
