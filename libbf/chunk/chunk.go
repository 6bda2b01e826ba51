// Package chunk cuts notes and records into the block-aligned chunks the dense strategy
// embeds. A chunk packs sibling blocks under one heading up to a target size, repeating
// the previous chunk's last block so a fact stated across a boundary survives in one
// piece; a fenced code block and a table row are never split, and a chunk's text is the
// source's own, unchanged. Each chunk's text starts
// with where it lives (title, heading path, type, linked entities, date; for a record its
// source, title and time), read from the item's structure rather than generated.
package chunk

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/bfgo/bf/libbf/markdown"
)

// target is the size, in characters, chunks are packed up to (before their prefix). A
// single block larger than that is a chunk of its own, whole.
const target = 1200

// Chunk is one piece to embed.
type Chunk struct {
	// Fragment is the section's slug, or "" for a note's introduction or a record.
	Fragment string
	// Text is the prefix, a blank line and the chunk's blocks.
	Text string
}

// Hash identifies a chunk's text (hex SHA-256), so a vector is computed once per text.
func (c Chunk) Hash() string {
	sum := sha256.Sum256([]byte(c.Text))
	return hex.EncodeToString(sum[:])
}

// Blocks splits Markdown text into blocks as CommonMark reads it (goldmark's tree): each
// list item, each table row (the header with its delimiter row) and every other top-level
// block (a fenced code block, however its fences nest, a paragraph, a quote) whole. Each
// block is the exact text of its lines, without the blank lines around it.
func Blocks(text string) []string {
	out := []string{}
	for _, sp := range spans(text) {
		out = append(out, text[sp.start:sp.end])
	}
	return out
}

// span is a block's byte range in the text.
type span struct{ start, end int }

// spans are the blocks of text in order. Every line belongs to the block whose start
// precedes it, so text goldmark keeps in no node (a link reference definition) stays with
// the block before it, and nothing is lost or changed.
func spans(text string) []span {
	src := []byte(text)
	doc := markdown.Parse(markdown.Notes(), src)
	starts := []int{0}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		for _, at := range blockStarts(n, src) {
			if at = lineStart(text, at); at > starts[len(starts)-1] {
				starts = append(starts, at)
			}
		}
	}
	var out []span
	for i, at := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		if sp, ok := trimBlank(text, at, end); ok {
			out = append(out, sp)
		}
	}
	return out
}

// blockStarts are the offsets where a top-level node's blocks start: one per list item,
// one per table row after the header and delimiter rows, else the node's own.
func blockStarts(n ast.Node, src []byte) []int {
	switch n.Kind() {
	case ast.KindList:
		var out []int
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			out = append(out, position(it))
		}
		return out
	case ast.KindParagraph:
		if rows := tableRows(n.Lines(), src); rows != nil {
			return rows
		}
	}
	return []int{position(n)}
}

// position is where a block node starts in the source; -1 when goldmark gives none.
func position(n ast.Node) int {
	if p := n.Pos(); p >= 0 {
		return p
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return n.Lines().At(0).Start
	}
	if c := n.FirstChild(); c != nil {
		return position(c)
	}
	return -1
}

// tableRows are the starts of a paragraph's rows when it is a table (a header row with
// a pipe, then a delimiter row such as |---|:-:|): the header with the delimiter row,
// then each row after them. nil for any other paragraph.
func tableRows(lines *text.Segments, src []byte) []int {
	if lines.Len() < 2 {
		return nil
	}
	first, second := lines.At(0), lines.At(1)
	header, delim := first.Value(src), second.Value(src)
	if !bytes.Contains(header, []byte("|")) || !separatorRow(string(bytes.TrimSpace(delim))) {
		return nil
	}
	out := []int{lines.At(0).Start}
	for i := 2; i < lines.Len(); i++ {
		out = append(out, lines.At(i).Start)
	}
	return out
}

// separatorRow reports a table's delimiter row (|---|:-:|), which holds no fact.
func separatorRow(s string) bool {
	return strings.Contains(s, "-") && strings.Trim(s, "|-: \t") == ""
}

// lineStart is the offset of the line holding offset at (0 for a negative one).
func lineStart(text string, at int) int {
	if at <= 0 {
		return 0
	}
	return strings.LastIndexByte(text[:at], '\n') + 1
}

// trimBlank narrows text[start:end] to its lines from the first to the last nonblank
// one, without the last line's ending; ok is false when every line is blank.
func trimBlank(text string, start, end int) (span, bool) {
	for start < end {
		nl := strings.IndexByte(text[start:end], '\n')
		if nl < 0 || strings.TrimSpace(text[start:start+nl]) != "" {
			break
		}
		start += nl + 1
	}
	for end > start {
		nl := strings.LastIndexByte(text[start:end], '\n')
		if strings.TrimSpace(text[start+nl+1:end]) != "" {
			break
		}
		if nl < 0 {
			end = start
			break
		}
		end = start + nl
	}
	end = start + len(strings.TrimSuffix(text[start:end], "\r"))
	return span{start, end}, strings.TrimSpace(text[start:end]) != ""
}

// pack groups blocks, given by their sizes, into chunks of up to target: each group is
// the first and last index of its blocks, and each group after the first starts with the
// previous group's last block when both fit.
func pack(sizes []int, target int) [][2]int {
	var out [][2]int
	first, size := 0, 0
	for i, n := range sizes {
		if i > first && size+n > target {
			out = append(out, [2]int{first, i - 1})
			first, size = i, 0
			if last := sizes[i-1]; last+n <= target {
				first, size = i-1, last
			}
		}
		size += n
	}
	if len(sizes) > 0 {
		out = append(out, [2]int{first, len(sizes) - 1})
	}
	return out
}

// Where is what a chunk's prefix says about where it lives.
type Where struct {
	Title    string
	Headings []string // the heading path, outermost first
	Type     string
	Source   string
	Entities []string // linked entities
	Date     string   // a note's updated day, a record's time
}

// Prefix is the lines naming where a chunk lives.
func (w Where) Prefix() string {
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	line("Source", w.Source)
	line("Title", w.Title)
	line("Section", strings.Join(w.Headings, " > "))
	line("Type", w.Type)
	line("Linked", strings.Join(w.Entities, ", "))
	line("Date", w.Date)
	return b.String()
}

// Cut chunks a passage's text: its blocks packed to Target, each chunk the prefix, a
// blank line and the exact text from its first block to its last.
func Cut(w Where, fragment, text string) []Chunk {
	var out []Chunk
	prefix := w.Prefix()
	blocks := spans(text)
	sizes := make([]int, len(blocks))
	for i, sp := range blocks {
		sizes[i] = utf8.RuneCountInString(text[sp.start:sp.end])
	}
	for _, g := range pack(sizes, target) {
		body := text[blocks[g[0]].start:blocks[g[1]].end]
		out = append(out, Chunk{Fragment: fragment, Text: prefix + "\n" + body})
	}
	if len(out) == 0 && prefix != "" {
		out = append(out, Chunk{Fragment: fragment, Text: prefix})
	}
	return out
}
