package text

import "testing"

func TestDecode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain é", "plain é"},
		{"a\xffb", "a\uFFFDb"},
		{"a\xe2\x82b", "a\uFFFDb"},       // a cut three-byte sequence is one replacement
		{"a\xe0\x80b", "a\uFFFD\uFFFDb"}, // an overlong start is not a prefix of anything
		{"\xf0\x9f\x98", "\uFFFD"},
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"}, // a surrogate is never UTF-8
	}
	for _, tt := range tests {
		if got := Decode([]byte(tt.in)); got != tt.want {
			t.Errorf("Decode(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCleanLineAndClip(t *testing.T) {
	if got, want := CleanLine("  a\tb\x1f\u00a0c\n\u2028d  "), "a b c d"; got != want {
		t.Errorf("CleanLine = %q, want %q", got, want)
	}
	if got, want := Clip("ééééé", 3), "éé…"; got != want {
		t.Errorf("Clip = %q, want %q", got, want)
	}
	if got, want := Clip("abc", 3), "abc"; got != want {
		t.Errorf("Clip = %q, want %q", got, want)
	}
	if got, want := Trim("\x1c x \u3000"), "x"; got != want {
		t.Errorf("Trim = %q, want %q", got, want)
	}
}
