package search

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
)

// ellipsis marks a snippet cut short at either end.
const ellipsis = " … "

// excerpt is the query's words in context within one passage: an FTS5 snippet of its text
// of at most 48 tokens, in the passage's original characters, on one line. A whole note or
// record whose text shows nothing, such as one matching by its title, previews its lead.
func excerpt(ctx context.Context, p *part, match string, passage int64) (string, error) {
	// One statement per brain serves every result of the page: compiling it is most of
	// the cost of one excerpt.
	if p.excerpts == nil {
		st, err := p.tx.PrepareContext(ctx, `SELECT snippet(search, 1, '', '', ?, 48), p.original,
			CASE WHEN p.fragment = '' THEN i.lead ELSE '' END
		FROM search JOIN passages p ON p.id = search.rowid JOIN items i ON i.id = p.item
		WHERE search MATCH ? AND search.rowid = ?`)
		if err != nil {
			return "", err
		}
		p.excerpts = st
	}
	var snip, original, lead string
	err := p.excerpts.QueryRowContext(ctx, ellipsis, match, passage).Scan(&snip, &original, &lead)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if original != "" {
		snip = verbatim(snip, original)
	}
	if out := reply.Collapse(snip); out != "" {
		return out, nil
	}
	return reply.Collapse(lead), nil
}

// verbatim maps a snippet of a folded passage back to the original characters, so m² or
// a ligature reads as written. Folding each run of white space or other characters of the
// original gives the folded passage, so every position of the snippet falls in one run;
// the runs the snippet overlaps are kept whole.
func verbatim(snip, original string) string {
	var runs []string
	for rest := original; rest != ""; {
		r, _ := utf8.DecodeRuneInString(rest)
		space := reply.IsSpace(r)
		end := strings.IndexFunc(rest, func(r rune) bool { return reply.IsSpace(r) != space })
		if end < 0 {
			end = len(rest)
		}
		runs = append(runs, rest[:end])
		rest = rest[end:]
	}
	forms := make([]string, len(runs))
	var joined strings.Builder
	for i, run := range runs {
		forms[i] = fold.Text(run)
		joined.WriteString(forms[i])
	}
	head, tail := "", ""
	window := snip
	if strings.HasPrefix(window, ellipsis) {
		head, window = ellipsis, window[len(ellipsis):]
	}
	if strings.HasSuffix(window, ellipsis) {
		tail, window = ellipsis, window[:len(window)-len(ellipsis)]
	}
	start := strings.Index(joined.String(), window)
	if start < 0 {
		return snip
	}
	end := start + len(window)
	var kept strings.Builder
	pos := 0
	for i, run := range runs {
		if pos >= end {
			break
		}
		if start < pos+len(forms[i]) {
			kept.WriteString(run)
		}
		pos += len(forms[i])
	}
	return head + kept.String() + tail
}
