package main

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNDCG(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	if got := ndcgAt(10, []string{"a", "b", "c"}, rel); !near(got, 1) {
		t.Errorf("perfect ranking: %v", got)
	}
	// One hit at rank 2 of two relevant: (1/log2 3) / (1 + 1/log2 3).
	want := (1 / math.Log2(3)) / (1 + 1/math.Log2(3))
	if got := ndcgAt(10, []string{"x", "b"}, rel); !near(got, want) {
		t.Errorf("hit at 2: %v, want %v", got, want)
	}
	if got := ndcgAt(1, []string{"x", "a"}, rel); got != 0 {
		t.Errorf("cut at 1: %v", got)
	}
	if got := ndcgAt(10, []string{"a", "a"}, map[string]int{"a": 1}); !near(got, 1) {
		t.Errorf("duplicates count once: %v", got)
	}
	if got := ndcgAt(10, nil, rel); got != 0 {
		t.Errorf("nothing found: %v", got)
	}
}

func TestRecall(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1, "c": 1, "d": 1}
	if got := recallAt(10, []string{"a", "x", "c", "a"}, rel); !near(got, 0.5) {
		t.Errorf("recall: %v", got)
	}
	if got := recallAt(1, []string{"x", "a"}, rel); got != 0 {
		t.Errorf("cut at 1: %v", got)
	}
}
