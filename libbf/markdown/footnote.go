package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// maxFootnoteLabel bounds a footnote label, in bytes, as CommonMark bounds link labels.
const maxFootnoteLabel = 999

// footnotesKey holds, in a parse's context, the FootnoteList the definitions move into.
var footnotesKey = parser.NewContextKey()

// footnoteBlockParser reads a footnote definition, `[^label]: text` with its indented
// continuation lines (PHP Markdown Extra's syntax). On closing, each definition moves into
// one FootnoteList, which takes the place of the first definition closed.
type footnoteBlockParser struct{}

func (footnoteBlockParser) Trigger() []byte { return []byte{'['} }

func (footnoteBlockParser) Open(_ ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, segment := reader.PeekLine()
	at := pc.BlockOffset()
	if at < 0 || line[at] != '[' || at+1 >= len(line) || line[at+1] != '^' {
		return nil, parser.NoChildren
	}
	open := at + 2
	end := labelEnd(line[open:min(len(line), open+maxFootnoteLabel)])
	if end < 0 {
		return nil, parser.NoChildren
	}
	closes := open + end
	colon := closes + 1
	if colon >= len(line) || line[colon] != ':' {
		return nil, parser.NoChildren
	}
	// The label's and the body's offsets are counted in the line less its padding, as
	// goldmark's own extension counts them.
	padding := segment.Padding
	label := reader.Value(text.NewSegment(segment.Start+open-padding, segment.Start+closes-padding))
	if util.IsBlank(label) {
		return nil, parser.NoChildren
	}
	def := extast.NewFootnote(label)
	body := colon + 1 - padding
	if body >= len(line) {
		reader.Advance(body)
		return def, parser.NoChildren
	}
	reader.AdvanceAndSetPadding(body, padding)
	return def, parser.HasChildren
}

// Continue keeps blank lines and lines indented by four columns in the definition.
func (footnoteBlockParser) Continue(_ ast.Node, reader text.Reader, _ parser.Context) parser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		return parser.Continue | parser.HasChildren
	}
	at, padding := util.IndentPosition(line, reader.LineOffset(), 4)
	if at < 0 {
		return parser.Close
	}
	reader.AdvanceAndSetPadding(at, padding)
	return parser.Continue | parser.HasChildren
}

func (footnoteBlockParser) Close(node ast.Node, _ text.Reader, pc parser.Context) {
	parent := node.Parent()
	list, _ := pc.Get(footnotesKey).(*extast.FootnoteList)
	if list == nil {
		list = extast.NewFootnoteList()
		pc.Set(footnotesKey, list)
		parent.InsertBefore(parent, node, list)
	}
	parent.RemoveChild(parent, node)
	list.AppendChild(list, node)
}

func (footnoteBlockParser) CanInterruptParagraph() bool { return true }

func (footnoteBlockParser) CanAcceptIndentedLine() bool { return false }

// footnoteLinkParser reads a reference to a footnote, `[^label]` (or `![^label]`, read as a
// "!" and the reference), as a FootnoteLink numbered in the order definitions are first
// cited. A label no definition carries stays text.
type footnoteLinkParser struct{}

func (footnoteLinkParser) Trigger() []byte { return []byte{'!', '['} }

func (footnoteLinkParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, segment := block.PeekLine()
	// The caret is looked for one byte further after a '!', whatever that byte is, as
	// goldmark's own extension does.
	at := 1
	if len(line) > 0 && line[0] == '!' {
		at = 2
	}
	if at >= len(line) || line[at] != '^' {
		return nil
	}
	open := at + 1
	if open >= len(line) {
		return nil
	}
	end := labelEnd(line[open:min(len(line), open+maxFootnoteLabel)])
	if end < 0 {
		return nil
	}
	closes := open + end
	label := block.Value(text.NewSegment(segment.Start+open, segment.Start+closes))
	block.Advance(closes + 1)

	list, _ := pc.Get(footnotesKey).(*extast.FootnoteList)
	if list == nil {
		return nil
	}
	index := 0
	for n := list.FirstChild(); n != nil; n = n.NextSibling() {
		def := n.(*extast.Footnote)
		if bytes.Equal(def.Ref, label) {
			if def.Index < 0 {
				list.Count++
				def.Index = list.Count
			}
			index = def.Index
			break
		}
	}
	if index == 0 {
		return nil
	}
	if line[0] == '!' {
		parent.AppendChild(parent, ast.NewTextSegment(text.NewSegment(segment.Start, segment.Start+1)))
	}
	return extast.NewFootnoteLink(index)
}

// labelEnd is the offset of the ']' that closes a label in s, which starts just after the
// opening bracket, or -1 when s holds no such ']' or a '[' comes first. A backslash escapes
// the ASCII punctuation after it.
func labelEnd(s []byte) int {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && util.IsPunct(s[i+1]):
			i++
		case c == ']':
			return i
		case c == '[':
			return -1
		}
	}
	return -1
}
