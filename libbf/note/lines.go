package note

import (
	"sort"
	"strings"
)

// source is one note's text cut into lines the way bf counts them: only "\r\n", "\r" and
// "\n" end a line, so U+2028 and friends stay inside their line and line numbers agree
// with what editors and `grep -n` show.
type source struct {
	lines []string // without line endings; the BOM is dropped from the first
	// origin[i] is the byte offset in the caller's data where line i+1 starts;
	// origin[len(lines)] is len(data), so a line range maps to a byte range.
	origin []int
}

func splitLines(data []byte) source {
	var s source
	start := 0
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		start = 3
	}
	lineStart := 0 // the BOM belongs to line 1 in byte terms
	for i := start; i < len(data); i++ {
		c := data[i]
		if c != '\n' && c != '\r' {
			continue
		}
		s.lines = append(s.lines, string(data[start:i]))
		s.origin = append(s.origin, lineStart)
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		start, lineStart = i+1, i+1
	}
	if start < len(data) {
		s.lines = append(s.lines, string(data[start:]))
		s.origin = append(s.origin, lineStart)
	}
	s.origin = append(s.origin, len(data))
	return s
}

// offset returns the byte offset in the caller's data where 1-based line n starts;
// n past the last line gives len(data).
func (s source) offset(n int) int {
	if n < 1 {
		return 0
	}
	if n > len(s.lines) {
		return s.origin[len(s.origin)-1]
	}
	return s.origin[n-1]
}

// text joins 1-based lines [from, to) with "\n".
func (s source) text(from, to int) string {
	from = max(from, 1)
	to = min(to, len(s.lines)+1)
	if from >= to {
		return ""
	}
	return strings.Join(s.lines[from-1:to-1], "\n")
}

// lineIndex maps byte offsets of the normalised body (lines joined by "\n") to 1-based
// line numbers.
type lineIndex []int // starts[i] = offset of line i+1

func newLineIndex(lines []string) lineIndex {
	idx := make(lineIndex, len(lines))
	off := 0
	for i, l := range lines {
		idx[i] = off
		off += len(l) + 1
	}
	return idx
}

func (x lineIndex) line(off int) int {
	if off < 0 {
		return 0
	}
	return sort.Search(len(x), func(i int) bool { return x[i] > off })
}

// trimBlank drops leading and trailing blank lines and trailing spaces of the last line,
// so a section's text does not depend on how many empty lines surround it.
func trimBlank(s string) string {
	return strings.Trim(s, " \t\n")
}
