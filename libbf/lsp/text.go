package lsp

import (
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf16"
)

// text is a document's content with the byte offset where each line starts. Lines end
// at "\r\n", "\r" or "\n", as in LSP and in bf's note parser.
type text struct {
	s      string
	starts []int
}

func newText(s string) *text {
	t := &text{s: s, starts: []int{0}}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			t.starts = append(t.starts, i+1)
		case '\n':
			t.starts = append(t.starts, i+1)
		}
	}
	return t
}

// lines is the number of lines (a final line ending opens an empty last line).
func (t *text) lines() int { return len(t.starts) }

// line returns 0-based line n without its ending, or "" past the end.
func (t *text) line(n int) string {
	if n < 0 || n >= len(t.starts) {
		return ""
	}
	end := len(t.s)
	if n+1 < len(t.starts) {
		end = t.starts[n+1]
	}
	return strings.TrimRight(t.s[t.starts[n]:end], "\r\n")
}

// offset converts a position to a byte offset, clamping to the line and the text.
func (t *text) offset(p Position) int {
	if p.Line < 0 {
		return 0
	}
	if p.Line >= len(t.starts) {
		return len(t.s)
	}
	start := t.starts[p.Line]
	return start + byteColumn(t.line(p.Line), p.Character)
}

// position converts a byte offset to a position.
func (t *text) position(off int) Position {
	off = max(0, min(off, len(t.s)))
	n := 0
	for n+1 < len(t.starts) && t.starts[n+1] <= off {
		n++
	}
	l := t.line(n)
	col := min(off-t.starts[n], len(l))
	return Position{Line: n, Character: utf16Len(l[:col])}
}

// span is the range of bytes [from, to) of 0-based line n.
func (t *text) span(n, from, to int) Range {
	l := t.line(n)
	from, to = max(0, min(from, len(l))), max(0, min(to, len(l)))
	return Range{Start: Position{n, utf16Len(l[:from])}, End: Position{n, utf16Len(l[:to])}}
}

// lineRange is the range of line n's text without its leading blanks.
func (t *text) lineRange(n int) Range {
	l := t.line(n)
	return t.span(n, len(l)-len(strings.TrimLeft(l, " \t")), len(l))
}

// utf16Len counts the UTF-16 code units of s.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(1, utf16.RuneLen(r))
	}
	return n
}

// byteColumn converts a UTF-16 column of line l to a byte offset in l, clamped to its end.
func byteColumn(l string, col int) int {
	units := 0
	for i, r := range l {
		if units >= col {
			return i
		}
		units += max(1, utf16.RuneLen(r))
	}
	return len(l)
}

// pathOf returns the file path of a file: URI, or "" for another scheme.
func pathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := filepath.FromSlash(u.Path)
	if !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
}

// uriOf returns the file: URI of an absolute path.
func uriOf(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
