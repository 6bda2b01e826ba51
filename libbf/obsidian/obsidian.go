// Package obsidian reads the parts of Obsidian's Markdown dialect that plain Markdown does
// not have: [[wikilinks]] and ![[embeds]], inline #tags and ^block ids, plus the inline
// Markdown links an Obsidian vault writes, each with its byte offsets so a converter can
// rewrite them in place.
//
// Everything here is pure text scanning: code (fenced blocks and inline code spans) is
// skipped, nothing touches the disk and nothing resolves a link against a vault.
package obsidian

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Link is one [[wikilink]] or ![[embed]] of a body.
type Link struct {
	Start, End int // byte offsets of the whole form, from "[[" (or "![[") through "]]"
	Embed      bool
	// Path is the note or file named, as written and trimmed; empty for a link into the
	// same note ([[#Heading]]).
	Path string
	// Headings are the #Heading parts after the path, outermost first.
	Headings []string
	// Block is the block id of a #^id part, without the caret.
	Block string
	// Text is what follows the first |, when HasText.
	Text    string
	HasText bool
	// EscapedPipe reports a \| separator, as links inside table cells write it.
	EscapedPipe bool
}

// Raw returns the link as written in text.
func (l Link) Raw(text string) string { return text[l.Start:l.End] }

// maxLink bounds the inside of a wikilink: longer bracket runs are text.
const maxLink = 4096

// parse reads the inside of a wikilink (between "[[" and "]]"). It fails on an empty
// target, a line break, brackets or a text longer than maxLink.
func parse(inner string) (Link, bool) {
	if inner == "" || len(inner) > maxLink || strings.ContainsAny(inner, "\n\r[]") {
		return Link{}, false
	}
	var l Link
	target := inner
	if i := strings.IndexByte(inner, '|'); i >= 0 {
		target, l.Text, l.HasText = inner[:i], inner[i+1:], true
		if strings.HasSuffix(target, `\`) {
			target, l.EscapedPipe = target[:len(target)-1], true
		}
	}
	parts := strings.Split(target, "#")
	l.Path = strings.TrimSpace(parts[0])
	for i, p := range parts[1:] {
		p = strings.TrimSpace(p)
		if i == len(parts)-2 && strings.HasPrefix(p, "^") {
			l.Block = p[1:]
			continue
		}
		if p != "" {
			l.Headings = append(l.Headings, p)
		}
	}
	if l.Path == "" && len(l.Headings) == 0 && l.Block == "" {
		return Link{}, false
	}
	return l, true
}

// spans returns the byte ranges of text outside code: fenced code blocks and inline code
// spans are left out, so nothing inside them reads as a link or a tag.
func spans(text string) [][2]int {
	var out [][2]int
	fence := ""
	pos := 0
	start := -1 // start of the current run of prose lines
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		next := len(text)
		if end >= 0 {
			next = pos + end + 1
		}
		line := text[pos:next]
		if fence != "" {
			if closes(line, fence) {
				fence = ""
			}
			pos = next
			continue
		}
		if f := opens(line); f != "" {
			if start >= 0 {
				out = append(out, inline(text, start, pos)...)
				start = -1
			}
			fence = f
			pos = next
			continue
		}
		if start < 0 {
			start = pos
		}
		pos = next
	}
	if start >= 0 && fence == "" {
		out = append(out, inline(text, start, len(text))...)
	}
	return out
}

// opens returns the fence a line opens (``` or ~~~, three or more, up to three spaces in),
// or "".
func opens(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.ContainsRune(t[n:], '`')) {
		return ""
	}
	return t[:n]
}

func closes(line, fence string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || !strings.HasPrefix(t, fence) {
		return false
	}
	t = strings.TrimLeft(t, fence[:1])
	return strings.TrimSpace(t) == ""
}

// inline splits text[from:to] around inline code spans: a run of n backticks opens a span
// that the next run of exactly n backticks closes; an unclosed run is plain text.
func inline(text string, from, to int) [][2]int {
	var out [][2]int
	seg := from
	i := from
	for i < to {
		if text[i] != '`' {
			i++
			continue
		}
		n := run(text, i, to)
		j := i + n
		closeAt := -1
		for j < to {
			if text[j] != '`' {
				j++
				continue
			}
			m := run(text, j, to)
			if m == n {
				closeAt = j + m
				break
			}
			j += m
		}
		if closeAt < 0 {
			i += n
			continue
		}
		if i > seg {
			out = append(out, [2]int{seg, i})
		}
		seg, i = closeAt, closeAt
	}
	if seg < to {
		out = append(out, [2]int{seg, to})
	}
	return out
}

func run(text string, i, to int) int {
	n := 0
	for i+n < to && text[i+n] == '`' {
		n++
	}
	return n
}

// Find returns the wikilinks and embeds of a Markdown body, in order, outside code.
func Find(text string) []Link {
	var out []Link
	for _, sp := range spans(text) {
		seg := text[sp[0]:sp[1]]
		for i := 0; i+1 < len(seg); {
			j := strings.Index(seg[i:], "[[")
			if j < 0 {
				break
			}
			open := i + j
			if open > 0 && seg[open-1] == '\\' {
				i = open + 2
				continue
			}
			rest := seg[open+2:]
			// A link holds no line break and at most maxLink bytes: looking no further
			// keeps the scan linear however many brackets a text opens.
			window := rest[:min(len(rest), maxLink+2)]
			if nl := strings.IndexByte(window, '\n'); nl >= 0 {
				window = window[:nl]
			}
			k := strings.Index(window, "]]")
			if k < 0 || k > maxLink {
				i = open + 2
				continue
			}
			l, ok := parse(rest[:k])
			if !ok {
				i = open + 2
				continue
			}
			l.Start, l.End = sp[0]+open, sp[0]+open+2+k+2
			if open > 0 && seg[open-1] == '!' {
				l.Embed = true
				l.Start--
			}
			out = append(out, l)
			i = open + 2 + k + 2
		}
	}
	return out
}

// Tag is one inline #tag of a body.
type Tag struct {
	Start, End int    // byte offsets, the # included
	Label      string // without the #; nested tags keep their slashes (a/b)
}

// FindTags returns the inline #tags of a Markdown body, outside code: a # at the start of a
// line or after whitespace, then letters, digits, _, - or /, not all digits.
func FindTags(text string) []Tag {
	var out []Tag
	for _, sp := range spans(text) {
		for i := sp[0]; i < sp[1]; i++ {
			if text[i] != '#' {
				continue
			}
			if i > 0 {
				r, _ := utf8.DecodeLastRuneInString(text[:i])
				if !unicode.IsSpace(r) {
					continue
				}
			}
			j := i + 1
			digits := true
			for j < sp[1] {
				r, n := utf8.DecodeRuneInString(text[j:])
				if !tagRune(r) {
					break
				}
				if !unicode.IsDigit(r) && r != '/' {
					digits = false
				}
				j += n
			}
			label := strings.Trim(text[i+1:j], "/")
			if label == "" || digits {
				continue
			}
			out = append(out, Tag{Start: i, End: j, Label: label})
			i = j - 1
		}
	}
	return out
}

func tagRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || r == '_' || r == '-' || r == '/' ||
		(r > 0x7f && unicode.Is(unicode.So, r))
}

var blockRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)\^([A-Za-z0-9-]+)[ \t]*$`) })

// BlockLine returns the 1-based line of text that ends with the block id ^id, or 0.
func BlockLine(text, id string) int {
	for i, line := range strings.Split(text, "\n") {
		if m := blockRE().FindStringSubmatch(strings.TrimRight(line, "\r")); m != nil && m[1] == id {
			return i + 1
		}
	}
	return 0
}

// Dest is the destination of one inline Markdown link or image, or of a reference
// definition.
type Dest struct {
	Start, End int    // byte offsets of the destination as written (angle brackets included)
	Value      string // the destination with angle brackets and backslash escapes removed
	// Open is the offset of the "](" or "]:" that introduces the destination, so a
	// converter can turn the link into text by escaping it.
	Open int
}

var refDefRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)`) })

// FindDests returns the destinations of the inline links, images and reference
// definitions of a Markdown body, outside code.
func FindDests(text string) []Dest {
	var out []Dest
	for _, sp := range spans(text) {
		seg := text[sp[0]:sp[1]]
		for _, m := range refDefRE().FindAllStringSubmatchIndex(seg, -1) {
			raw := seg[m[2]:m[3]]
			out = append(out, Dest{Start: sp[0] + m[2], End: sp[0] + m[3], Value: unescape(strings.TrimSuffix(strings.TrimPrefix(raw, "<"), ">")), Open: sp[0] + strings.Index(seg[m[0]:m[1]], "]:") + m[0]})
		}
		for i := 0; ; {
			j := strings.Index(seg[i:], "](")
			if j < 0 {
				break
			}
			open := i + j
			if d, ok := dest(seg, open+2); ok {
				d.Start += sp[0]
				d.End += sp[0]
				d.Open = sp[0] + open
				out = append(out, d)
			}
			i = open + 2
		}
	}
	return out
}

// dest parses an inline link destination starting at i (just after "](") and checks that
// the link closes with ")" after an optional title.
func dest(s string, i int) (Dest, bool) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	d := Dest{Start: i}
	if i < len(s) && s[i] == '<' {
		k := strings.IndexAny(s[i+1:], ">\n<")
		if k < 0 || s[i+1+k] != '>' {
			return Dest{}, false
		}
		d.End = i + 1 + k + 1
		d.Value = unescape(s[i+1 : i+1+k])
	} else {
		depth := 0
		j := i
		for j < len(s) {
			c := s[j]
			if c == '\\' && j+1 < len(s) {
				j += 2
				continue
			}
			if c <= ' ' || c == 0x7f {
				break
			}
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth == 0 {
					break
				}
				depth--
			}
			j++
		}
		d.End = j
		d.Value = unescape(s[i:j])
	}
	rest := strings.TrimLeft(s[d.End:], " \t")
	if rest == "" {
		return Dest{}, false
	}
	if rest[0] != ')' {
		q := rest[0]
		closer := q
		if q == '(' {
			closer = ')'
		} else if q != '"' && q != '\'' {
			return Dest{}, false
		}
		// Titles longer than a link may be are not looked for, so the scan stays linear.
		k := strings.IndexByte(rest[1:min(len(rest), maxLink)], closer)
		if k < 0 || !strings.HasPrefix(strings.TrimLeft(rest[1+k+1:], " \t"), ")") {
			return Dest{}, false
		}
	}
	return d, true
}

// unescape removes Markdown backslash escapes before ASCII punctuation.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
