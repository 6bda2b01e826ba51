package note

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/markdown"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/util"
)

// parseMarkdown parses a note body in bf's note dialect (CommonMark plus footnotes).
func parseMarkdown(body []byte) ast.Node {
	return markdown.Parse(markdown.Notes(), body)
}

// decode gives the text a CommonMark renderer would show for raw inline source: backslash
// escapes of ASCII punctuation removed and entity references resolved, in one pass so
// "\&amp;" stays "&amp;" and "&amp;lt;" stays "&lt;".
func decode(raw []byte) string {
	if !strings.ContainsAny(string(raw), `\&`) {
		return string(raw)
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' && i+1 < len(raw) && util.IsPunct(raw[i+1]) {
			b.WriteByte(raw[i+1])
			i++
			continue
		}
		if c == '&' {
			if s, n := entity(raw[i:]); n > 0 {
				b.WriteString(s)
				i += n - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// entity decodes one entity reference at the start of s (CommonMark: named, decimal with
// 1-7 digits, hexadecimal with 1-6 digits), returning its text and source length.
func entity(s []byte) (string, int) {
	end := strings.IndexByte(string(s[:min(len(s), 40)]), ';')
	if end < 2 {
		return "", 0
	}
	body := string(s[1:end])
	if body[0] != '#' {
		for i := 0; i < len(body); i++ {
			if !util.IsAlphaNumeric(body[i]) {
				return "", 0
			}
		}
		if e, ok := util.LookUpHTML5EntityByName(body); ok {
			return string(e.Characters), end + 1
		}
		return "", 0
	}
	digits, base, limit := body[1:], 10, 7
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base, limit = digits[1:], 16, 6
	}
	if len(digits) == 0 || len(digits) > limit {
		return "", 0
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return "", 0
	}
	r := rune(v)
	if r == 0 || !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	return string(r), end + 1
}

// codeText is a code span's content: every character kept, line endings read as spaces.
func codeText(n ast.Node, src []byte) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if t, ok := c.(*ast.Text); ok {
			b.Write(t.Segment.Value(src))
		}
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}

// footnoteLabels maps footnote indexes, as citations carry them, to their labels.
func footnoteLabels(doc ast.Node) map[int]string {
	labels := map[int]string{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*extast.Footnote); ok && entering && f.Index > 0 {
			labels[f.Index] = string(f.Ref)
		}
		return ast.WalkContinue, nil
	})
	return labels
}

// writeLeafText writes the text of an inline node that holds text of its own (text, a
// string, a code span's content, an autolink's label) and reports whether n was one;
// plain text and heading slugs read these alike. Text ending in a line break adds a space.
func writeLeafText(b *strings.Builder, n ast.Node, src []byte) bool {
	switch t := n.(type) {
	case *ast.Text:
		b.WriteString(decode(t.Segment.Value(src)))
		if t.SoftLineBreak() || t.HardLineBreak() {
			b.WriteByte(' ')
		}
	case *ast.String:
		b.Write(t.Value)
	case *ast.CodeSpan:
		b.WriteString(codeText(t, src))
	case *ast.AutoLink:
		b.Write(t.Label(src))
	default:
		return false
	}
	return true
}

// inlineText renders inline nodes as the text heading slugs use: text, code span
// content and image alt text; emphasis markers, link destinations and raw HTML dropped;
// line breaks (setext headings) read as one space.
func inlineText(parent ast.Node, src []byte, labels map[int]string) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(p ast.Node) {
		for n := p.FirstChild(); n != nil; n = n.NextSibling() {
			if writeLeafText(&b, n, src) {
				continue
			}
			switch t := n.(type) {
			case *ast.RawHTML:
			case *extast.FootnoteLink:
				b.WriteString("[^" + labels[t.Index] + "]")
			default:
				walk(n)
			}
		}
	}
	walk(parent)
	return b.String()
}
