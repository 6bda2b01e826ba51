package lsp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPositions converts between byte offsets and LSP positions, which count UTF-16 code
// units: é is one unit in two bytes, 😀 two units in four bytes.
func TestPositions(t *testing.T) {
	txt := newText("a\r\ncafé 😀 x\rlast")
	tests := []struct {
		off int
		pos Position
	}{
		{0, Position{0, 0}},
		{1, Position{0, 1}},
		{3, Position{1, 0}},
		{6, Position{1, 3}},  // before é
		{8, Position{1, 4}},  // after é
		{9, Position{1, 5}},  // before 😀
		{13, Position{1, 7}}, // after 😀
		{15, Position{1, 9}}, // x ends the line
		{16, Position{2, 0}},
		{20, Position{2, 4}},
	}
	for _, tt := range tests {
		if got := txt.position(tt.off); got != tt.pos {
			t.Errorf("position(%d) = %+v, want %+v", tt.off, got, tt.pos)
		}
		if got := txt.offset(tt.pos); got != tt.off {
			t.Errorf("offset(%+v) = %d, want %d", tt.pos, got, tt.off)
		}
	}
	// Out of range positions clamp to the line and the text.
	for _, tt := range []struct {
		pos  Position
		want int
	}{{Position{0, 99}, 1}, {Position{9, 0}, 20}, {Position{-1, 0}, 0}, {Position{1, 6}, 13}} {
		if got := txt.offset(tt.pos); got != tt.want {
			t.Errorf("offset(%+v) = %d, want %d", tt.pos, got, tt.want)
		}
	}
	if diff := cmp.Diff([]string{"a", "café 😀 x", "last"}, []string{txt.line(0), txt.line(1), txt.line(2)}); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if got, want := txt.span(1, 3, 10), (Range{Position{1, 3}, Position{1, 7}}); got != want {
		t.Errorf("span = %+v, want %+v", got, want)
	}
}

func TestFieldLine(t *testing.T) {
	txt := newText("---\ntype: x\nfields:\n  owner: [a]\n  kind: b\naliases:\n  - c\n---\nbody\n")
	for _, tt := range []struct {
		field string
		line  int
		ok    bool
	}{
		{"type", 1, true}, {"fields.owner", 3, true}, {"fields.kind", 4, true},
		{"aliases.0", 5, true}, {"fields.nope", 2, true}, {"missing", -1, false},
	} {
		line, ok := fieldLine(txt, tt.field)
		if line != tt.line || ok != tt.ok {
			t.Errorf("fieldLine(%q) = %d, %v; want %d, %v", tt.field, line, ok, tt.line, tt.ok)
		}
	}
}
