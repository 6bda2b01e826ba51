package search

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
)

// ellipsis marks a snippet cut short at either end.
const ellipsis = " … "

// Excerpts are at most excerptWords tokens long.
const excerptWords = 48

// snippetBudget bounds the work FTS5's snippet() may do for one excerpt. snippet() scores
// a window around every hit by visiting every other hit and every sentence start before
// it, so its cost grows with hits × (hits + sentences): a note of one word repeated 40,000
// times would take minutes. A passage that may pass the budget (counting every word as a
// hit) is read in chunks instead (see chunker).
const snippetBudget = 4 << 20

// excerpt is the query's words in context within one passage: an FTS5 snippet of its text
// of at most 48 tokens, in the passage's original characters, on one line. A whole note or
// record whose text shows nothing, such as one matching by its title, previews its lead.
// A passage whose hits could make the snippet costly gets it from its first chunk with a hit.
//
// snippet() depends only on the row it is computed for (its columns' text, tokens and hits),
// so it is computed over a copy of the passage's row in a private one-row table rather than
// over the cache's index: the same text, tokenizer and query give the same snippet, and its
// cost no longer grows with the index (a prefix or a phrase query over the whole index first
// merges every matching term's postings).
func excerpt(ctx context.Context, p *part, match string, passage int64) (string, error) {
	if p.texts == nil {
		st, err := p.tx.PrepareContext(ctx, `SELECT s.title, s.text, s.names, s.context,
			i.id IS NOT NULL, coalesce(CASE WHEN i.id IS NOT NULL THEN p.original END, ''),
			coalesce(CASE WHEN p.fragment = '' THEN i.lead ELSE '' END, '')
		FROM search s LEFT JOIN passages p ON p.id = s.rowid LEFT JOIN items i ON i.id = p.item
		WHERE s.rowid = ?`)
		if err != nil {
			return "", err
		}
		p.texts = st
	}
	var cols [4]string
	var joined bool
	var original, lead string
	err := p.texts.QueryRowContext(ctx, passage).Scan(&cols[0], &cols[1], &cols[2], &cols[3], &joined, &original, &lead)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if words, stops := shape(cols[1]); !cheap(words, stops) {
		snip, err := chunks.snippet(ctx, match, [4]string{1: cols[1]}, 1, "", "", ellipsis, excerptWords)
		if err != nil {
			return "", err
		}
		return present(snip, original, lead), nil
	}
	if !joined {
		return "", nil // a search row without its passage or item matched nothing to show
	}
	snip, found, err := chunks.row(ctx, match, cols, 1, "", "", ellipsis, excerptWords)
	if err != nil || !found {
		return "", err
	}
	return present(snip, original, lead), nil
}

// present is a snippet of the folded text as the reply shows it: in the original
// characters, on one line, or the lead when it shows nothing.
func present(snip, original, lead string) string {
	if original != "" {
		snip = verbatim(snip, original)
	}
	if out := reply.Collapse(snip); out != "" {
		return out
	}
	return reply.Collapse(lead)
}

// cheap reports whether snippet() over hits hits among stops possible sentence ends stays
// within snippetBudget.
func cheap(hits, stops int) bool { return hits*(hits+stops) <= snippetBudget }

// isWord is a character FTS5's unicode61 tokenizer may keep in a token. Counting its runs
// overcounts tokens, never undercounts them.
func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || unicode.Is(unicode.Co, r)
}

// shape counts the runs of word characters of s, a bound on its tokens and so on its hits,
// and the characters that may end a sentence for snippet() ('.' and ':'). It stops counting
// once the counts pass snippetBudget, so a huge passage costs no more than a small one.
func shape(s string) (words, stops int) {
	in := false
	for i := 0; i < len(s); {
		var w bool
		if c := s[i]; c < utf8.RuneSelf {
			w = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
			if c == '.' || c == ':' {
				stops++
			}
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			w = isWord(r)
			i += size
		}
		if w && !in {
			words++
			if words&1023 == 0 && !cheap(words, stops) {
				return words, stops
			}
		}
		in = w
	}
	return words, stops
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
