// Package chunk cuts notes and records into the block-aligned chunks the dense strategy
// embeds. A chunk packs sibling blocks under one heading up to a target size, repeating
// the previous chunk's last block so a fact stated across a boundary survives in one
// piece; a fenced code block and a table row are never split. Each chunk's text starts
// with where it lives (title, heading path, type, linked entities, date; for a record its
// source, title and time), read from the item's structure rather than generated.
package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Target is the size, in characters, chunks are packed up to (before their prefix). A
// single block larger than that is a chunk of its own, whole.
const Target = 1200

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

// Blocks splits Markdown text into blocks: a fenced code block (``` or ~~~) whole, each
// table row, each list item, and each paragraph (lines up to a blank line).
func Blocks(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case trim == "":
			flush()
		case strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~"):
			flush()
			fence := trim[:3]
			cur = append(cur, line)
			for i++; i < len(lines); i++ {
				cur = append(cur, lines[i])
				if strings.HasPrefix(strings.TrimSpace(lines[i]), fence) {
					break
				}
			}
			flush()
		case strings.HasPrefix(trim, "|"):
			flush()
			if !separatorRow(trim) {
				out = append(out, line)
			}
		case listItem(trim):
			flush()
			cur = append(cur, line)
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

// separatorRow reports a table's |---|---| line, which holds no fact.
func separatorRow(s string) bool {
	return strings.Trim(s, "|-: ") == ""
}

// listItem reports a line opening a list item (-, *, + or a number and a dot).
func listItem(s string) bool {
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") || strings.HasPrefix(s, "+ ") {
		return true
	}
	i := 0
	for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(s) && (s[i] == '.' || s[i] == ')') && s[i+1] == ' '
}

// Pack groups blocks into chunks of up to target characters; each chunk after the first
// starts with the previous chunk's last block.
func Pack(blocks []string, target int) [][]string {
	var out [][]string
	var cur []string
	size := 0
	for _, b := range blocks {
		n := utf8.RuneCountInString(b)
		if len(cur) > 0 && size+n > target {
			out = append(out, cur)
			last := cur[len(cur)-1]
			cur, size = nil, 0
			if utf8.RuneCountInString(last)+n <= target {
				cur, size = []string{last}, utf8.RuneCountInString(last)
			}
		}
		cur = append(cur, b)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
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

// Cut chunks a passage's text: its blocks packed to Target, each with the prefix.
func Cut(w Where, fragment, text string) []Chunk {
	var out []Chunk
	prefix := w.Prefix()
	for _, group := range Pack(Blocks(text), Target) {
		out = append(out, Chunk{Fragment: fragment, Text: prefix + "\n" + strings.Join(group, "\n\n")})
	}
	if len(out) == 0 && prefix != "" {
		out = append(out, Chunk{Fragment: fragment, Text: prefix})
	}
	return out
}
