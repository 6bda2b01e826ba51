package search

import (
	"testing"

	"github.com/bfgo/bf/libbf/terms"
)

// The first term of a word, in byte order, stemmed as the search table's terms or only
// folded, as suggestions compare and show them.
func TestFirstTerm(t *testing.T) {
	stemmed, folded := terms.Terms, terms.Folded
	tests := []struct {
		cut        func(string) []string
		word, want string
	}{
		{stemmed, "having", "have"},
		{folded, "Café", "cafe"},
		{stemmed, "beings", "be"},
		{stemmed, "!!!", ""},
		{stemmed, "running", "run"},
		{folded, "two words", "two"},
		{folded, "zebra", "zebra"},
		{stemmed, "Zürich", "zurich"},
		{folded, "", ""},
		{stemmed, "connections", "connect"},
		{folded, "connections", "connections"},
		{stemmed, "zebras and lions", "and"},
	}
	for _, tc := range tests {
		if got := firstTerm(tc.cut(tc.word)); got != tc.want {
			t.Errorf("firstTerm(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestFunctionWord(t *testing.T) {
	for word, want := range map[string]bool{
		"the": true, "having": true, "beings": true, "ledger": false, "billing": false,
	} {
		if got := functionWord(word); got != want {
			t.Errorf("functionWord(%q) = %v, want %v", word, got, want)
		}
	}
}
