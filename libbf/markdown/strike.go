package markdown

import (
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// strikethroughParser reads a run of one or two tildes as a delimiter that goldmark's
// emphasis algorithm pairs with a run of the same length into a Strikethrough; a run of
// three or more, or one that follows a tilde, stays text.
type strikethroughParser struct{}

func (strikethroughParser) Trigger() []byte { return []byte{'~'} }

func (strikethroughParser) Parse(_ ast.Node, block text.Reader, pc parser.Context) ast.Node {
	before := block.PrecendingCharacter()
	if before == '~' {
		return nil
	}
	line, segment := block.PeekLine()
	d := parser.ScanDelimiter(line, before, 1, tilde{})
	if d == nil || d.OriginalLength > 2 {
		return nil
	}
	d.Segment = segment.WithStop(segment.Start + d.OriginalLength)
	block.Advance(d.OriginalLength)
	pc.PushDelimiter(d)
	return d
}

// tilde is the delimiter processor of tilde runs.
type tilde struct{}

func (tilde) IsDelimiter(b byte) bool { return b == '~' }

func (tilde) CanOpenCloser(opener, closer *parser.Delimiter) bool {
	return opener.Char == closer.Char
}

func (tilde) OnMatch(int) ast.Node { return extast.NewStrikethrough() }
