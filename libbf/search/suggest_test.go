package search

import (
	"context"
	"testing"
)

// The tokenizer answers each word alone, whichever table asked before it and whatever the
// previous word made (several terms, none).
func TestTokenizerTerm(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		table, word, want string
	}{
		{stemmed, "having", "have"},
		{plain, "Café", "cafe"},
		{stemmed, "beings", "be"},
		{stemmed, "!!!", ""},
		{stemmed, "running", "run"},
		{plain, "two words", "two"},
		{plain, "zebra", "zebra"},
		{stemmed, "Zürich", "zurich"},
		{plain, "", ""},
		{stemmed, "connections", "connect"},
	}
	for round := range 2 { // the second round answers from the cache
		for _, tc := range tests {
			got, err := tokens.term(ctx, tc.table, tc.word)
			if err != nil {
				t.Fatalf("round %d: term(%s, %q): %v", round, tc.table, tc.word, err)
			}
			if got != tc.want {
				t.Errorf("round %d: term(%s, %q) = %q, want %q", round, tc.table, tc.word, got, tc.want)
			}
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
