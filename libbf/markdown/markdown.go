// Package markdown is bf's Markdown dialect: the goldmark parsers that read notes and leads,
// and the three extensions bf uses beside CommonMark (task checkboxes, strikethrough and
// footnotes), written here so that no bf command links goldmark's extension package, whose
// package-level regular expressions every process would otherwise compile at start
// (docs/decisions.md, "bf's own Markdown extensions"). The nodes are goldmark's own
// (github.com/yuin/goldmark/extension/ast) and the trees are the ones goldmark's extensions
// build, node for node.
package markdown

import (
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Priorities among the parsers that share a trigger character, as goldmark's extensions
// register them: the checkbox before links (200), footnote references between code spans
// (100) and links, a footnote definition after every other block parser but paragraphs.
const (
	taskPriority          = 0
	footnoteLinkPriority  = 101
	strikethroughPriority = 500
	footnoteBlockPriority = 999
)

// Notes parses note bodies: CommonMark plus footnotes. Footnote definitions are parsed as
// blocks so the links inside `[^id]: [Source](ref)` count and the definition is not
// mistaken for a link reference definition. goldmark's footnote AST transformer is left
// out on purpose: it drops definitions nobody cites, and their links still count.
// A goldmark parser is safe for concurrent use; this one is built on first use, so a
// command that parses no note does not pay for it.
var Notes = sync.OnceValue(func() parser.Parser {
	return build(
		[]util.PrioritizedValue{util.Prioritized(footnoteBlockParser{}, footnoteBlockPriority)},
		[]util.PrioritizedValue{util.Prioritized(footnoteLinkParser{}, footnoteLinkPriority)},
	)
})

// Leads parses the Markdown of a lead (the text an item shows in results): CommonMark plus
// task checkboxes and strikethrough. Built on first use: most commands read the cache and
// never parse Markdown.
var Leads = sync.OnceValue(func() parser.Parser {
	return build(nil, []util.PrioritizedValue{
		util.Prioritized(taskCheckBoxParser{}, taskPriority),
		util.Prioritized(strikethroughParser{}, strikethroughPriority),
	})
})

// Parse parses src with p into a document whose segments index src.
func Parse(p parser.Parser, src []byte) ast.Node {
	return p.Parse(text.NewReader(src))
}

// build is CommonMark's parsers with the given block and inline parsers added.
func build(blocks, inlines []util.PrioritizedValue) parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers(append(parser.DefaultBlockParsers(), blocks...)...),
		parser.WithInlineParsers(append(parser.DefaultInlineParsers(), inlines...)...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
	)
}
