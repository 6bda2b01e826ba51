package cache

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/markdown"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// maxLead bounds items.lead, in characters.
const maxLead = 320

// plainText reduces Markdown to the words a reader sees: links and images become their
// labels, heading markers, rules, emphasis and code markers disappear, HTML is dropped,
// and whitespace collapses to single spaces.
func plainText(md string) string {
	if strings.TrimSpace(md) == "" {
		return ""
	}
	src := []byte(md)
	doc := markdown.Parse(markdown.Leads(), src)
	var b strings.Builder
	space := func() { b.WriteByte(' ') }
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.ThematicBreak, *ast.HTMLBlock, *ast.RawHTML, *extast.TaskCheckBox:
			return ast.WalkSkipChildren, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			if entering {
				lines := n.Lines()
				for i := 0; i < lines.Len(); i++ {
					seg := lines.At(i)
					b.Write(seg.Value(src))
					space()
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.Text:
			if entering {
				b.Write(n.Segment.Value(src))
				if n.SoftLineBreak() || n.HardLineBreak() {
					space()
				}
			}
		case *ast.String:
			if entering {
				b.Write(n.Value)
			}
		case *ast.AutoLink:
			if entering {
				b.Write(n.Label(src))
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			if entering {
				for c := n.FirstChild(); c != nil; c = c.NextSibling() {
					if t, ok := c.(*ast.Text); ok {
						b.Write(t.Segment.Value(src))
					}
				}
			}
			return ast.WalkSkipChildren, nil
		default:
			if n.Type() == ast.TypeBlock {
				space()
			}
		}
		return ast.WalkContinue, nil
	})
	return collapse(b.String())
}

// collapse turns every run of whitespace into one space and trims the ends.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// collapseClip is clipRunes(collapse(s), n), without collapsing more of s than its first n
// characters need: a record's lead is cut from texts of any length.
func collapseClip(s string, n int) string {
	var b strings.Builder
	runes := 0
	for w := range strings.FieldsFuncSeq(s, unicode.IsSpace) {
		if b.Len() > 0 {
			b.WriteByte(' ')
			runes++
		}
		b.WriteString(w)
		if runes += utf8.RuneCountInString(w); runes > n {
			break
		}
	}
	return clipRunes(b.String(), n)
}

// clipRunes cuts s to at most n characters.
func clipRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return strings.TrimRightFunc(s[:pos], unicode.IsSpace)
		}
		i++
	}
	return s
}

// foldText is the NFKC fold every FTS value goes through.
func foldText(s string) string { return fold.Text(s) }
