package search

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/scratch"
)

// chunkWords is the most words of one chunk of a costly passage: snippet() over a chunk
// costs at most chunkWords × 2 × chunkWords steps, a few milliseconds.
const chunkWords = 512

// maxChunks is how many chunks of a passage are searched for a hit: the excerpt of a passage
// whose first hit lies further in is its first words, so one excerpt never indexes more
// than maxChunks × chunkWords words whatever the passage holds.
const maxChunks = 64

// chunker cuts costly passages into chunks in an FTS5 table of the scratch database with
// the search table's columns and tokenizer, so snippet() runs over the first chunk that
// matches instead of over the whole passage.
type chunker struct{}

var chunks chunker

// snippet is snippet(search, col, open, close, dots, size) over the first chunk of a
// passage whose columns are cols that matches match: title, names and context go with the
// first chunk of the text. The ellipsis dots marks where the chunk cut the text. Chunks are
// written in growing batches until one matches, so the work is linear in the text read and
// stops at the first hit; it ends with ctx.
func (chunker) snippet(ctx context.Context, match string, cols [4]string, col int, open, close, dots string, size int) (snip string, err error) {
	err = scratch.Do(ctx, func(c *scratch.Conn) error {
		if err := c.Exec(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS chunk USING fts5(title, text, names, context,
			tokenize='porter unicode61 remove_diacritics 2')`); err != nil {
			return err
		}
		// Dropped, not emptied: the chunks of a long passage may be many segments.
		defer c.Exec(context.WithoutCancel(ctx), `DROP TABLE chunk`)
		snip, err = chunkSnippet(ctx, c, match, cols, col, open, close, dots, size)
		return err
	})
	return snip, err
}

func chunkSnippet(ctx context.Context, c *scratch.Conn, match string, cols [4]string, col int, open, close, dots string, size int) (string, error) {
	rest := cols[1]
	for n, batch := 0, 1; ; batch *= 2 {
		// One transaction per batch, so FTS5 writes one segment for it.
		if err := c.Exec(ctx, `BEGIN`); err != nil {
			return "", err
		}
		for i := 0; i < batch && n < maxChunks && (rest != "" || n == 0); i++ {
			var piece string
			piece, rest = cutWords(rest, chunkWords)
			n++
			row := [4]string{1: piece}
			if n == 1 {
				row = [4]string{cols[0], piece, cols[2], cols[3]}
			}
			if err := c.Exec(ctx, `INSERT INTO chunk(rowid, title, text, names, context) VALUES (?, ?, ?, ?, ?)`,
				n, row[0], row[1], row[2], row[3]); err != nil {
				c.Rollback(ctx)
				return "", err
			}
		}
		if err := c.Exec(ctx, `COMMIT`); err != nil {
			c.Rollback(ctx)
			return "", err
		}
		var id int
		var snip string
		err := c.QueryRow(ctx, `SELECT rowid, snippet(chunk, ?, ?, ?, ?, ?) FROM chunk
			WHERE chunk MATCH ? ORDER BY rowid LIMIT 1`, []any{col, open, close, dots, size, match}, &id, &snip)
		if err == nil {
			if id > 1 && col == 1 && !strings.HasPrefix(snip, dots) {
				snip = dots + snip
			}
			if (id < n || rest != "") && col == 1 && !strings.HasSuffix(snip, dots) {
				snip += dots
			}
			return snip, nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return "", err
		}
		if rest == "" {
			return "", nil
		}
		if n >= maxChunks {
			if col != 1 {
				return "", nil
			}
			// No hit near the start: the passage's first words stand for it.
			head, _ := cutWords(cols[1], size)
			return head + dots, nil
		}
	}
}

// cutWords splits s after its first n runs of word characters, at the end of a line or
// sentence when one comes within the last eighth of them.
func cutWords(s string, n int) (head, rest string) {
	words, in, soft := 0, false, -1
	for i, r := range s {
		w := isWord(r)
		if w && !in {
			words++
			if words > n {
				if soft < 0 {
					soft = i
				}
				return s[:soft], s[soft:]
			}
		}
		in = w
		if !w && words >= n-n/8 && soft < 0 && (r == '\n' || r == '.') {
			soft = i + utf8.RuneLen(r)
		}
	}
	return s, ""
}

// row is snippet(passage, col, open, close, dots, size) over a one-row FTS5 table holding
// cols, with the search table's columns and tokenizer, when the row matches match; found
// is false when it does not. snippet() reads only its own row, so this is the snippet the
// search table gives for a row of the same columns, at a cost that depends on the row alone.
func (chunker) row(ctx context.Context, match string, cols [4]string, col int, open, close, dots string, size int) (snip string, found bool, err error) {
	err = cache.WithPassage(ctx, cols, func(c *scratch.Conn) error {
		err := c.QueryRow(ctx, `SELECT snippet(passage, ?, ?, ?, ?, ?) FROM passage WHERE passage MATCH ?`,
			[]any{col, open, close, dots, size, match}, &snip)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		found = err == nil
		return err
	})
	return snip, found, err
}
