package main

import (
	"github.com/bfgo/bf/bench/internal/locomo"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScore(t *testing.T) {
	var s Score
	s.add([]string{"a", "b", "c"}, []string{"b", "z"})                                     // half found, first at 2
	s.add([]string{"x"}, []string{"y"})                                                    // none
	s.add([]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "e"}, []string{"e"}) // 11th: off the page
	s.add([]string{"e"}, []string{"e"})                                                    // found first
	s.mean()
	if diff := cmp.Diff(Score{N: 4, Recall: (0.5 + 1) / 4, MRR: (0.5 + 1) / 4}, s); diff != "" {
		t.Errorf("score (-want +got):\n%s", diff)
	}
}

func TestTurnTitle(t *testing.T) {
	if got := title(locomo.Turn{ID: "D1:1", Speaker: "Ann", Text: "Hi!"}); got != "Ann (D1:1)" {
		t.Errorf("title %q", got)
	}
}
