package cache

import (
	"strings"
	"testing"
)

func TestCollapseClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 5, ""},
		{"   ", 5, ""},
		{"one", 5, "one"},
		{" one\n\ttwo  ", 20, "one two"},
		{"one two three", 7, "one two"},
		{"one two three", 8, "one two"},
		{"one two three", 9, "one two t"},
		{"one two three", 13, "one two three"},
		{"one\u00a0two\u3000three", 9, "one two t"},
		{"héllo wörld again", 11, "héllo wörld"},
		{"日本語 テキスト です", 6, "日本語 テキ"},
		{"word " + strings.Repeat("x", 1000), 8, "word xxx"},
		{"a b", 0, ""},
	}
	for _, tt := range tests {
		got := collapseClip(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("collapseClip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if full := clipRunes(collapse(tt.in), tt.n); got != full {
			t.Errorf("collapseClip(%q, %d) = %q, clipRunes(collapse()) = %q", tt.in, tt.n, got, full)
		}
	}
}
