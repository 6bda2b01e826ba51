package note

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// Section is one heading of a note and the text it governs. Every heading level gets one,
// so any heading can be read as path#slug.
type Section struct {
	Level int
	Title string // heading text without an explicit {#id}
	Slug  string
	// Anchor says Slug was written as {#id} rather than generated.
	Anchor bool
	// Line is the heading's first line and End the first line after the section, both
	// 1-based in the whole file: a read of path#slug covers [Line, End), subsections
	// included.
	Line, End int
	// TextLine..Next are the lines of the section's own text, between the heading (a
	// setext heading ends with its underline) and the next heading of any level.
	TextLine, Next int
	// Text is the section's own text as written, surrounding blank lines dropped:
	// subsections are passages of their own.
	Text string
	// Offset and EndOffset are the byte range of [Line, End) in the parsed data, so a read
	// can return the file's exact bytes.
	Offset, EndOffset int
	// Parent is the index of the enclosing section in Note.Sections, or -1.
	Parent int
	// Parents are the titles of the enclosing headings, outermost first, without the H1
	// that opens the note (the note title already stands for it).
	Parents []string
	// Passage is false only for an H1 that opens the note: it stands for the whole note,
	// whose passage is the title plus the introduction.
	Passage bool
}

// Messages shared with bf validate.
const (
	msgAnchorMD  = "explicit heading anchors cannot end in .md"
	msgAnchorDup = "duplicate explicit heading anchor"
)

// anchorRE finds an explicit anchor at the end of a heading's own trailing text. It runs on
// the raw source, so an escaped brace or an entity never forms an anchor.
var anchorRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{#([A-Za-z0-9][A-Za-z0-9_.-]*)\}$`) })

// lowers hands out Unicode lowercasers that apply the context-dependent special cases
// (final sigma, dotted capital I), so a heading gets the same slug in bf as in other tools
// that lowercase by the full Unicode rules. A Caser keeps state, so each goroutine takes
// its own.
var lowers = sync.Pool{New: func() any { c := cases.Lower(language.Und); return &c }}

// Slug turns heading text into a section fragment: lowercase it, delete every character
// that is not a letter, digit, underscore, whitespace or '-', turn each whitespace
// character into '-' (runs are kept, so "A  B" gives "a--b"), and use "section" when
// nothing is left. Links to sections depend on this being stable.
func Slug(s string) string {
	lower := lowers.Get().(*cases.Caser)
	defer lowers.Put(lower)
	var b strings.Builder
	for _, r := range lower.String(s) {
		switch {
		case isSpace(r):
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}

// isSpace is the whitespace of slugs and titles: Go's unicode.IsSpace plus the
// information separators U+001C..U+001F, which Unicode also counts as separators.
func isSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// heading is what parsing finds before slugs are assigned.
type heading struct {
	level     int
	title     string
	anchor    string // explicit {#id}, "" when none or refused
	pos       int    // byte offset in the body, for document order
	line      int
	last      int // last line; a setext heading's underline
	badAnchor bool
}

// collectHeadings finds every heading, wherever it sits (lists, quotes, footnotes), in
// source order: the footnote parser moves definitions to the end of the tree.
func collectHeadings(doc ast.Node, body []byte, idx lineIndex, labels map[int]string) []heading {
	var out []heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		out = append(out, readHeading(h, body, idx, labels))
		return ast.WalkSkipChildren, nil
	})
	slices.SortStableFunc(out, func(a, b heading) int { return a.pos - b.pos })
	return out
}

func readHeading(h *ast.Heading, body []byte, idx lineIndex, labels map[int]string) heading {
	hd := heading{level: h.Level, pos: h.Pos()}
	lines := h.Lines()
	if lines.Len() > 0 {
		first := lines.At(0).Start
		hd.pos = first
		hd.line = idx.line(first)
		hd.last = hd.line
		if !isATX(body, idx[hd.line-1], first) {
			hd.last = idx.line(lines.At(lines.Len()-1).Start) + 1
		}
	} else {
		hd.line = idx.line(hd.pos)
		hd.last = hd.line
	}
	hd.title = strings.TrimFunc(inlineText(h, body, labels), isSpace)
	if id, ok := explicitAnchor(h, body); ok {
		hd.title = strings.TrimRightFunc(strings.TrimSuffix(hd.title, "{#"+id+"}"), isSpace)
		if strings.HasSuffix(id, ".md") {
			hd.badAnchor = true
		} else {
			hd.anchor = id
		}
	}
	return hd
}

// isATX tells an ATX heading from a setext one by what precedes its text on its line
// (which starts at lineStart): an opening run of '#', after any container markers, that
// only ATX headings have.
func isATX(body []byte, lineStart, start int) bool {
	prefix := bytes.TrimRight(body[lineStart:start], " \t")
	return len(prefix) > 0 && prefix[len(prefix)-1] == '#'
}

// explicitAnchor reads {#id} from the heading's trailing plain text: the run of Text nodes
// that are direct children of the heading, as written. Inside emphasis, code or link
// text, or written with an escape or entity, braces are content, not an anchor.
// Whitespace must separate the anchor from the text before it.
func explicitAnchor(h *ast.Heading, body []byte) (string, bool) {
	var parts []string
	for n := h.LastChild(); n != nil; n = n.PreviousSibling() {
		t, ok := n.(*ast.Text)
		if !ok {
			break
		}
		s := string(t.Segment.Value(body))
		if t.SoftLineBreak() || t.HardLineBreak() {
			s += " "
		}
		parts = append(parts, s)
	}
	slices.Reverse(parts)
	raw := strings.TrimRightFunc(strings.Join(parts, ""), isSpace)
	m := anchorRE().FindStringSubmatchIndex(raw)
	if m == nil || m[0] == 0 {
		return "", false
	}
	if r, _ := utf8.DecodeLastRuneInString(raw[:m[0]]); !isSpace(r) {
		return "", false
	}
	return raw[m[2]:m[3]], true
}

// assignSlugs gives each heading its slug and reports anchor problems.
//
// An explicit anchor is kept unless an earlier heading already holds it; then the heading
// falls back to a generated slug, so a copied document stays readable. A generated slug
// that is taken gets -1, -2, … skipping slugs in use and anchors written explicitly later,
// so a later {#id} never loses its name to a generated one.
func assignSlugs(hs []heading) ([]string, []bool, []Problem) {
	slugs := make([]string, len(hs))
	explicit := make([]bool, len(hs))
	var problems []Problem
	later := map[string]int{} // anchor -> count of headings still to come that write it
	for _, h := range hs {
		if h.anchor != "" {
			later[h.anchor]++
		}
	}
	used := map[string]bool{}
	usedExplicit := map[string]bool{}
	tried := map[string]int{} // stem -> last suffix taken
	for i, h := range hs {
		if h.anchor != "" {
			later[h.anchor]--
		}
		if h.badAnchor {
			problems = append(problems, Problem{Line: h.line, Message: msgAnchorMD})
		}
		if h.anchor != "" {
			if !used[h.anchor] {
				slugs[i], explicit[i] = h.anchor, true
				used[h.anchor], usedExplicit[h.anchor] = true, true
				continue
			}
			problems = append(problems, Problem{Line: h.line, Message: msgAnchorDup})
		}
		g := Slug(h.title)
		if used[g] {
			if usedExplicit[g] && h.anchor == "" {
				problems = append(problems, Problem{Line: h.line, Message: msgAnchorDup})
			}
			// Suffixes skipped once stay unusable (used, or written later and then
			// used), so each stem resumes where it stopped: no quadratic rescans.
			for n := tried[g] + 1; ; n++ {
				c := g + "-" + strconv.Itoa(n)
				if !used[c] && later[c] == 0 {
					tried[g] = n
					g = c
					break
				}
			}
		}
		slugs[i] = g
		used[g] = true
	}
	return slugs, explicit, problems
}
