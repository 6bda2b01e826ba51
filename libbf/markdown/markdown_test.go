package markdown_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/markdown"
	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// The dialects as goldmark's own extension package builds them: the reference every parse
// of this package must match node for node.
var (
	goldmarkNotes = parser.NewParser(
		parser.WithBlockParsers(append(parser.DefaultBlockParsers(),
			util.Prioritized(extension.NewFootnoteBlockParser(), 999))...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(),
			util.Prioritized(extension.NewFootnoteParser(), 101))...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
	goldmarkLeads = goldmark.New(goldmark.WithExtensions(extension.TaskList, extension.Strikethrough)).Parser()
)

// dump writes a tree one node a line: its type, position and every plain field (segments,
// checked state, footnote labels and indexes, list markers, emphasis levels, destinations…),
// its lines for a block, and its text for a leaf.
func dump(src []byte, doc ast.Node) string {
	var b strings.Builder
	var walk func(n ast.Node, depth int)
	walk = func(n ast.Node, depth int) {
		fmt.Fprintf(&b, "%s%T pos=%d", strings.Repeat("  ", depth), n, n.Pos())
		v := reflect.ValueOf(n).Elem()
		for i := 0; i < v.NumField(); i++ {
			f, fv := v.Type().Field(i), v.Field(i)
			if f.Anonymous || !f.IsExported() {
				continue
			}
			switch fv.Kind() {
			case reflect.Pointer, reflect.Interface, reflect.Func, reflect.Map, reflect.Chan:
				continue
			}
			if fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Uint8 {
				fmt.Fprintf(&b, " %s=%q", f.Name, fv.Bytes())
				continue
			}
			fmt.Fprintf(&b, " %s=%v", f.Name, fv.Interface())
		}
		for _, a := range n.Attributes() {
			fmt.Fprintf(&b, " attr:%s=%v", a.Name, a.Value)
		}
		if n.Type() == ast.TypeBlock {
			fmt.Fprintf(&b, " blank=%v lines=", n.HasBlankPreviousLines())
			for i := 0; i < n.Lines().Len(); i++ {
				s := n.Lines().At(i)
				fmt.Fprintf(&b, "[%d,%d,%d]", s.Start, s.Stop, s.Padding)
			}
		}
		if t, ok := n.(*ast.Text); ok {
			fmt.Fprintf(&b, " text=%q", t.Segment.Value(src))
		}
		b.WriteByte('\n')
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Parent() != n {
				fmt.Fprintf(&b, "%s(child with another parent)\n", strings.Repeat("  ", depth+1))
			}
			walk(c, depth+1)
		}
	}
	walk(doc, 0)
	return b.String()
}

// compare parses src with goldmark's extensions and with bf's, in both dialects, and
// reports any difference between the trees.
func compare(t *testing.T, src []byte) {
	t.Helper()
	for _, d := range []struct {
		name      string
		want, got parser.Parser
	}{
		{"notes", goldmarkNotes, markdown.Notes()},
		{"leads", goldmarkLeads, markdown.Leads()},
	} {
		want := dump(src, d.want.Parse(text.NewReader(src)))
		got := dump(src, markdown.Parse(d.got, src))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s dialect, source %q: tree differs from goldmark's extensions (-goldmark +bf):\n%s", d.name, src, diff)
		}
	}
}

// cases are the inputs where the extensions' rules have edges.
var cases = []string{
	// Task checkboxes.
	"- [ ] open\n- [x] done\n- [X] done too\n",
	"1. [ ] first\n2) [x] second\n",
	"- [ ]\n- [x]\n- [ ]  \n",
	"- [\t] tab\n- [\f] form feed\n- [\v] vertical tab\n- [\r] cr\n",
	"- [y] no\n- [xx] no\n- [] no\n- [ x] no\n- [x ] no\n",
	"- [x]no space\n- [x]\ttab after\n- [x]   three spaces\n",
	"- a [x] not at the start\n- *a* [x] after emphasis\n",
	"- [x] [ ] two boxes\n- [x] [link](a.md)\n- [x][ref]\n\n[ref]: b.md\n",
	"- [x] task\n  - [ ] nested\n    - [X] deeper\n      1. [x] ordered inside\n",
	"- para\n\n  [x] second paragraph\n",
	"- > [x] quoted in a list\n> - [x] list in a quote\n",
	"[x] not in a list\n\n> [x] quote\n",
	"- `[x]` code span\n- ```\n  [x] fenced\n  ```\n",
	"- # [x] heading in item\n- [x] # task heading\n",
	"-\n  [x] item starting blank\n",
	"* [x] star\n+ [ ] plus\n",
	"- [x] line one\n  [x] line two\n",
	"- \\[x] escaped\n- [x\\] escaped close\n",
	"- [x]\n\n  after blank\n",
	"- [ ] \n- [x]\r\n- [X]\r\n",
	"   - [x] indented marker\n    - [x] code indent\n",
	"- [é] multibyte\n- [x]é\n",
	// Strikethrough.
	"~one~ ~~two~~ ~~~three~~~\n",
	"~~unbalanced\n\nunbalanced~~\n\n~~a~\n\n~a~~\n",
	"in~~tra~~word and in~tra~word\n",
	"~~ spaced ~~ and ~~spaced~~\n",
	"~~*emph* inside~~ and *~~strike~~ inside* and **~~both~~**\n",
	"~~a **b~~ c**\n",
	"*a ~~b* c~~\n",
	"~~~\nfenced with tildes\n~~~\n\n~~~~ not a fence ~~~~\n",
	"`~~code~~` ~~`code`~~\n",
	"a~~~~b ~~~~~~ ~~~~~x~~~~~\n",
	"~~a~~~~b~~\n",
	"\\~~escaped~~ ~~esc\\~~\n",
	"~~multi\nline~~\n",
	"~~[link](a.md)~~ [~~label~~](b.md)\n",
	"~~a ~~b~~ c~~\n",
	"~a ~~b~~ c~\n",
	"~~x~\n~y~~\n",
	"> ~~quoted~~\n> - [x] ~~done~~\n",
	"- [x] ~~done~~\n- [ ] ~open~\n",
	"# ~~heading~~\n\nSetext ~~h~~\n===\n",
	"~\n~~\n~~~\n",
	"é~~é~~é ~~é~~\n",
	"_~~a~~_ ~~_a_~~ __a~~b__c~~\n",
	"<del>~~html~~</del> ~~<b>x</b>~~\n",
	// Footnotes.
	"Cite[^a] and[^b] and [^missing].\n\n[^a]: One.\n[^b]: Two\n    continued.\n\n    Second paragraph.\n",
	"[^a]\n[^a]\n\n[^a]: cited twice\n",
	"[^a]: defined, never cited\n",
	"[^ ]: blank label\n\n[^]: empty label\n",
	"![^a] bang\n\n[^a]: x\n",
	"!x^a] odd\n\n[^a]: x\n",
	"[^a [b]]: nested\n\n[^a\\]]: escaped\n\ncite [^a\\]]\n",
	"para\n[^a]: interrupts\n\ncite [^a]\n",
	"> [^q]: in a quote\n\n- [^l]: in a list\n\n[^q] [^l]\n",
	"[^a]:\n\n[^a]\n",
	"[^a]: [Source](ref.md)\n\n## Cite [^a]\n\n[^a]: again\n",
	"\t[^t]: tab before\n   [^s]: three spaces\n    [^c]: code\n\n[^t][^s][^c]\n",
	"[^a]:\tafter a tab\n[^b]: - [x] list inside\n\t- nested\n\n[^b] [^a]\n",
	"[^x]: x\n\n[link][^x]\n\n[^x]: [y]\n",
	"`[^a]` [^a]\n\n[^a]: x\n",
	"- [^a]\n\n[^a]: - [ ] task in footnote\n",
	"[^é]: unicode\n\n[^é]\n",
	"[^a]: x\n> lazy\ncontinuation\n",
	"[^" + strings.Repeat("a", 1100) + "]: long label\n",
	// Mixed and plain CommonMark.
	"# Title\n\nText *emph* **strong** `code` [l](a.md) ![i](b.png) <https://x.y>\n\n---\n\n    code\n\n<div>\nhtml\n</div>\n",
	"- [x] ~~done~~ [^a]\n\n[^a]: ~~struck~~ note\n",
	"",
	"\n\n",
	"~",
	"[",
	"[^",
	"- [",
	"- [x",
	"- [x]",
	"![^",
}

func TestSameTrees(t *testing.T) {
	for _, c := range cases {
		compare(t, []byte(c))
	}
}

func FuzzSameTrees(f *testing.F) {
	for _, c := range cases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 512 {
			return // goldmark's cost grows with the cube of nesting; short inputs reach every rule here
		}
		compare(t, src)
	})
}
