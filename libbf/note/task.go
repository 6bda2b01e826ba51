package note

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// maxTaskText bounds a task's text in characters.
const maxTaskText = 320

// Task is a checkbox list item: a list item whose first paragraph's first line starts with
// "[ ]", "[x]" or "[X]", whitespace and some text. Items in blockquotes are quotes of
// someone else's list, and code is not parsed, so neither holds tasks.
type Task struct {
	Line    int    // 1-based line of the checkbox
	Done    bool   // [x] or [X]
	Section string // slug of the nearest heading above, "" before the first heading
	// Text is the plain text: links reduced to [label], #, *, _ and backtick markers gone
	// (underscores inside words such as MAX_FILE_SIZE stay), whitespace collapsed, at most
	// maxTaskText characters.
	Text string
	// Spans are the pieces Text is made of, so the tasks page can print links as
	// [label](ref) once it has resolved each target (see Render).
	Spans []Span
}

// Span is a piece of a task's text: plain text, or a link with its plain label.
type Span struct {
	Text   string
	Target string // destination as written; "" for plain text
	Link   bool
	Image  bool
}

// Render prints the task with links as [label](target(dest)) (images ![alt](…)), then
// collapses whitespace and cuts to maxTaskText characters. A nil target keeps each
// destination as written.
func (t Task) Render(target func(dest string) string) string {
	var b strings.Builder
	for _, s := range t.Spans {
		if !s.Link {
			b.WriteString(s.Text)
			continue
		}
		dest := s.Target
		if target != nil {
			dest = target(dest)
		}
		if s.Image {
			b.WriteByte('!')
		}
		b.WriteString("[" + s.Text + "](" + dest + ")")
	}
	return clip(b.String())
}

// plainText prints spans with links reduced to their labels in brackets.
func plainText(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		if s.Link {
			b.WriteString("[" + s.Text + "]")
		} else {
			b.WriteString(s.Text)
		}
	}
	return clip(b.String())
}

// clip collapses whitespace runs to one space and cuts to maxTaskText characters.
func clip(s string) string {
	s = strings.Join(strings.FieldsFunc(s, isSpace), " ")
	if utf8.RuneCountInString(s) <= maxTaskText {
		return s
	}
	n := 0
	for i := range s {
		if n == maxTaskText {
			return strings.TrimRightFunc(s[:i], isSpace)
		}
		n++
	}
	return s
}

// checkbox matches the start of a task's first line and returns whether it is done and
// how many bytes the box and the whitespace after it take.
func checkbox(line []byte) (done bool, n int, ok bool) {
	if len(line) < 4 || line[0] != '[' || line[2] != ']' {
		return false, 0, false
	}
	switch line[1] {
	case ' ':
	case 'x', 'X':
		done = true
	default:
		return false, 0, false
	}
	i := 3
	for i < len(line) {
		r, size := utf8.DecodeRune(line[i:])
		if !isSpace(r) {
			break
		}
		i += size
	}
	if i == 3 || i >= len(line) {
		return false, 0, false // no whitespace, or nothing after it
	}
	return done, i, true
}

// collectTasks walks the tree for checkbox items, outside blockquotes.
func collectTasks(doc ast.Node, body []byte, idx lineIndex, labels map[int]string) []Task {
	var out []Task
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.(type) {
		case *ast.Blockquote:
			return ast.WalkSkipChildren, nil
		case *ast.ListItem:
			if t, ok := readTask(n, body, idx, labels); ok {
				out = append(out, t)
			}
		}
		return ast.WalkContinue, nil
	})
	return out
}

func readTask(item ast.Node, body []byte, idx lineIndex, labels map[int]string) (Task, bool) {
	p := item.FirstChild()
	switch p.(type) {
	case *ast.Paragraph, *ast.TextBlock:
	default:
		return Task{}, false
	}
	if p.Lines().Len() == 0 {
		return Task{}, false
	}
	first := p.Lines().At(0)
	line := first.Value(body)
	if i := strings.IndexByte(string(line), '\n'); i >= 0 {
		line = line[:i]
	}
	done, n, ok := checkbox(line)
	if !ok {
		return Task{}, false
	}
	r := spanRenderer{src: body, skip: first.Start + n, labels: labels}
	r.inline(p)
	spans := r.finish()
	return Task{Line: idx.line(first.Start), Done: done, Text: plainText(spans), Spans: spans}, true
}

// spanRenderer turns a paragraph's inline nodes into spans, the way task text reads.
type spanRenderer struct {
	src    []byte
	skip   int // source before this offset (the checkbox) is left out
	labels map[int]string
	spans  []Span
	chunks []chunk // text not yet flushed into a span
}

// chunk is a run of text; verbatim chunks (code spans, URLs) keep every character.
type chunk struct {
	s        string
	verbatim bool
}

func (r *spanRenderer) add(s string, verbatim bool) {
	if n := len(r.chunks); n > 0 && r.chunks[n-1].verbatim == verbatim {
		r.chunks[n-1].s += s
		return
	}
	r.chunks = append(r.chunks, chunk{s, verbatim})
}

// text flushes pending chunks into one string, stripping markers outside verbatim runs.
func (r *spanRenderer) text() string {
	var b strings.Builder
	for _, c := range r.chunks {
		if c.verbatim {
			b.WriteString(c.s)
		} else {
			b.WriteString(stripMarkers(c.s))
		}
	}
	r.chunks = nil
	return b.String()
}

func (r *spanRenderer) flush() {
	if s := r.text(); s != "" {
		r.spans = append(r.spans, Span{Text: s})
	}
}

func (r *spanRenderer) finish() []Span {
	r.flush()
	return r.spans
}

func (r *spanRenderer) inline(parent ast.Node) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		switch t := n.(type) {
		case *ast.Text:
			seg := t.Segment
			if seg.Stop <= r.skip {
				continue // the checkbox itself
			}
			if seg.Start < r.skip {
				seg = seg.WithStart(r.skip)
			}
			r.add(decode(seg.Value(r.src)), false)
			if t.SoftLineBreak() || t.HardLineBreak() {
				r.add(" ", false)
			}
			continue
		}
		if p := n.Pos(); p >= 0 && p < r.skip {
			continue
		}
		switch t := n.(type) {
		case *ast.String:
			r.add(string(t.Value), false)
		case *ast.CodeSpan:
			r.add(codeText(t, r.src), true)
		case *ast.RawHTML:
			for i := 0; i < t.Segments.Len(); i++ {
				seg := t.Segments.At(i)
				r.add(string(seg.Value(r.src)), true)
			}
		case *extast.FootnoteLink:
			r.add("[^"+r.labels[t.Index]+"]", true)
		case *ast.Link:
			r.link(t, string(t.Destination), false)
		case *ast.Image:
			r.link(t, string(t.Destination), true)
		case *ast.AutoLink:
			r.flush()
			label := string(t.Label(r.src))
			r.spans = append(r.spans, Span{Text: label, Target: autoLinkURL(t, r.src), Link: true})
		default:
			r.inline(n)
		}
	}
}

// link renders a link's label with the same rules, into its own span.
func (r *spanRenderer) link(n ast.Node, dest string, image bool) {
	r.flush()
	sub := spanRenderer{src: r.src, labels: r.labels}
	sub.inline(n)
	var label strings.Builder
	for _, s := range sub.finish() {
		label.WriteString(s.Text) // a link cannot hold a link; an image's alt is text
	}
	r.spans = append(r.spans, Span{Text: label.String(), Target: decode([]byte(dest)), Link: true, Image: image})
}

// stripMarkers removes Markdown markers left in plain text: '#', '*', backticks, and '_'
// unless a run of underscores sits between letters or digits, as in MAX_FILE_SIZE.
func stripMarkers(s string) string {
	if !strings.ContainsAny(s, "#*_`") {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '#', '*', '`':
			continue
		case '_':
			j := i
			for j < len(rs) && rs[j] == '_' {
				j++
			}
			if i > 0 && j < len(rs) && isAlnum(rs[i-1]) && isAlnum(rs[j]) {
				b.WriteString(string(rs[i:j]))
			}
			i = j - 1
			continue
		}
		b.WriteRune(rs[i])
	}
	return b.String()
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
