package note

import "strings"

// Bounds on block nesting as goldmark sees it. goldmark's cost grows with the square of
// the containers one line opens and with the cube of indentation-driven nesting, so a
// hostile 4 MiB note could stall a refresh for minutes. Real notes stay far below these
// bounds.
const (
	maxMarkers = 32 // container markers (>, list markers, footnote labels) opening one line
	maxIndent  = 64 // columns of leading whitespace
)

// defuse rewrites the few lines that exceed the nesting bounds, so parsing stays roughly
// linear. It never adds or removes a line, so line numbers stay those of the file; the
// text of sections is always cut from the lines as written, never from this copy.
//
// A line indented deeper than maxIndent columns keeps maxIndent spaces. A line that opens
// more than maxMarkers containers gets a backslash before its first marker, which makes it
// plain paragraph text (or a lazy continuation) instead of a tower of blocks.
func defuse(lines []string) {
	for i, l := range lines {
		cols, ws := 0, 0
		for ws < len(l) && (l[ws] == ' ' || l[ws] == '\t') {
			if l[ws] == '\t' {
				cols += 4 - cols%4
			} else {
				cols++
			}
			ws++
		}
		indent := l[:ws]
		if cols > maxIndent {
			indent = strings.Repeat(" ", maxIndent)
		}
		rest := l[ws:]
		if countMarkers(rest) > maxMarkers {
			rest = `\` + rest
		}
		if len(indent) != ws || len(rest) != len(l)-ws {
			lines[i] = indent + rest
		}
	}
}

// countMarkers counts the container markers that open s, up to maxMarkers+1: block quote
// markers, bullet and ordered list markers, and footnote definition labels, each possibly
// followed by whitespace.
func countMarkers(s string) int {
	n, i := 0, 0
	for i < len(s) && n <= maxMarkers {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '>':
			i++
		case (c == '-' || c == '+' || c == '*') && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t'):
			i += 2
		case c >= '0' && c <= '9':
			j := i
			for j < len(s) && j-i < 10 && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j+1 >= len(s) || (s[j] != '.' && s[j] != ')') || (s[j+1] != ' ' && s[j+1] != '\t') {
				return n
			}
			i = j + 2
		case c == '[' && strings.HasPrefix(s[i:], "[^"):
			j := strings.Index(s[i:], "]:")
			if j < 0 {
				return n
			}
			i += j + 2
		default:
			return n
		}
		n++
	}
	return n
}
