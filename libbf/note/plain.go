package note

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// Plain reduces Markdown to the words a reader sees, for one-line previews: links become
// their labels, images their alt text, code keeps its content, heading markers, rules,
// emphasis and HTML go, and whitespace collapses to single spaces.
func Plain(md string) string {
	src := []byte(md)
	var b strings.Builder
	_ = ast.Walk(parseMarkdown(src), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			if n.Type() == ast.TypeBlock {
				b.WriteByte(' ')
			}
			return ast.WalkContinue, nil
		}
		if writeLeafText(&b, n, src) {
			// A code span's text is its children's: they are not walked again.
			return ast.WalkSkipChildren, nil
		}
		switch t := n.(type) {
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			for i := 0; i < t.Lines().Len(); i++ {
				seg := t.Lines().At(i)
				b.Write(seg.Value(src))
			}
		case *ast.RawHTML, *ast.HTMLBlock, *extast.FootnoteLink:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.FieldsFunc(b.String(), isSpace), " ")
}

// Lead is the note's preview in listings: the plain text of its summary, else of its
// introduction, else of its first section, cut to 320 characters like task text.
func (n *Note) Lead() string {
	if s := Plain(n.Summary); s != "" {
		return clip(s)
	}
	if s := Plain(n.Intro); s != "" {
		return clip(s)
	}
	for _, s := range n.Sections {
		if s.Passage {
			return clip(Plain(s.Text))
		}
	}
	return ""
}
