package markdown_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/markdown"
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
)

// extensions lists, in document order, what the extensions made of src: task boxes
// ("[x]" or "[ ]"), struck text ("~text~"), footnote definitions ("def:label#index") and
// references ("ref#index").
func extensions(p parser.Parser, src string) string {
	var out []string
	_ = ast.Walk(markdown.Parse(p, []byte(src)), func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *extast.TaskCheckBox:
			if n.IsChecked {
				out = append(out, "[x]")
			} else {
				out = append(out, "[ ]")
			}
		case *extast.Strikethrough:
			var b strings.Builder
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					b.Write(t.Segment.Value([]byte(src)))
				}
			}
			out = append(out, "~"+b.String()+"~")
		case *extast.Footnote:
			out = append(out, fmt.Sprintf("def:%s#%d", n.Ref, n.Index))
		case *extast.FootnoteLink:
			out = append(out, fmt.Sprintf("ref#%d", n.Index))
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(out, " ")
}

func TestExtensions(t *testing.T) {
	for _, c := range []struct {
		name string
		p    parser.Parser
		src  string
		want string
	}{
		{"boxes", markdown.Leads(), "- [ ] a\n- [x] b\n- [X] c\n1. [ ]d\n", "[ ] [x] [x] [ ]"},
		{"box only at an item's start", markdown.Leads(), "- a [x]\n[x] b\n> [x] c\n- `[x]`\n", ""},
		{"nested boxes", markdown.Leads(), "- [x] a\n  - [ ] b\n", "[x] [ ]"},
		{"strike", markdown.Leads(), "~~a~~ ~b~ ~~~c~~~ d~~e~~f", "~a~ ~b~ ~e~"},
		{"unclosed strike", markdown.Leads(), "~~a\n\nb~~ c~", ""},
		{"no strike in code", markdown.Leads(), "`~~a~~`\n\n```\n~~b~~\n```\n", ""},
		{"notes have no boxes or strike", markdown.Notes(), "- [x] ~~a~~\n", ""},
		{"footnotes numbered by first citation", markdown.Notes(),
			"b[^b] a[^a] b[^b] x[^x]\n\n[^a]: A\n[^b]: B\n[^c]: C\n", "ref#1 ref#2 ref#1 def:a#2 def:b#1 def:c#-1"},
		{"leads have no footnotes", markdown.Leads(), "a[^a]\n\n[^a]: A\n", ""},
		{"blank label is no footnote", markdown.Notes(), "a[^ ]\n\n[^ ]: A\n", ""},
	} {
		if got := extensions(c.p, c.src); got != c.want {
			t.Errorf("%s: %q gives %q, want %q", c.name, c.src, got, c.want)
		}
	}
}
