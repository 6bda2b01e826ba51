package markdown

import (
	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// taskCheckBoxParser reads the GitHub task marker `[ ]`, `[x]` or `[X]` that opens the
// first paragraph of a list item, with the white space after it, as a TaskCheckBox.
type taskCheckBoxParser struct{}

func (taskCheckBoxParser) Trigger() []byte { return []byte{'['} }

func (taskCheckBoxParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	// Only at the very start of the first block of a list item.
	item := parent.Parent()
	if item == nil || item.FirstChild() != parent || parent.HasChildren() {
		return nil
	}
	if _, ok := item.(*ast.ListItem); !ok {
		return nil
	}
	line, _ := block.PeekLine()
	if len(line) < 3 || line[0] != '[' || line[2] != ']' {
		return nil
	}
	mark := line[1]
	if mark != 'x' && mark != 'X' && !markSpace(mark) {
		return nil
	}
	n := 3
	for n < len(line) && markSpace(line[n]) {
		n++
	}
	block.Advance(n)
	return extast.NewTaskCheckBox(mark == 'x' || mark == 'X')
}

// markSpace is the white space a task marker may hold and that may follow it: ASCII space,
// tab, line feed, form feed and carriage return (not vertical tab), as GitHub's rule has it.
func markSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
