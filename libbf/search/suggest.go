package search

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/terms"
)

// Suggestion limits.
const (
	maxSuggestions = 3
	maxCandidates  = 5000
	minSuggestLen  = 4
	suggestCutoff  = 0.75
)

// missing returns the terms no part holds, whatever the scope, in query order.
func missing(ctx context.Context, parts []*part, terms []fold.Term) ([]fold.Term, error) {
	var out []fold.Term
	for _, t := range terms {
		found := false
		for _, p := range parts {
			var err error
			if found, err = holds(ctx, p, t); err != nil {
				return nil, err
			}
			if found {
				break
			}
		}
		if !found {
			out = append(out, t)
		}
	}
	return out, nil
}

// heldTerms returns the terms some passage of p holds, in query order.
func heldTerms(ctx context.Context, p *part, terms []fold.Term) ([]fold.Term, error) {
	out := make([]fold.Term, 0, len(terms))
	for _, t := range terms {
		found, err := holds(ctx, p, t)
		if err != nil {
			return nil, err
		}
		if found {
			out = append(out, t)
		}
	}
	return out, nil
}

// holds reports whether some passage of p holds t, whatever the scope. The answer is kept
// for the search: the ranking asks it to leave unheld terms out, and the reply's unmatched
// terms ask it again.
func holds(ctx context.Context, p *part, t fold.Term) (bool, error) {
	match := t.Match()
	if found, ok := p.held[match]; ok {
		return found, nil
	}
	var one int
	err := p.tx.QueryRowContext(ctx, `SELECT 1 FROM search WHERE search MATCH ? LIMIT 1`, match).Scan(&one)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, err
	}
	if p.held == nil {
		p.held = map[string]bool{}
	}
	p.held[match] = found
	return found, nil
}

// suggest returns up to three words the parts hold close to an unmatched word: its stem,
// as the index holds it, compared with the indexed stems sharing its first two characters,
// each close stem shown as a passage spells it, lowercased and with accents folded.
// Phrases, prefixes and words shorter than four characters get none.
func suggest(ctx context.Context, parts []*part, t fold.Term) ([]string, error) {
	if t.Phrase || t.Prefix || strings.Contains(t.Text, " ") || utf8.RuneCountInString(t.Text) < minSuggestLen {
		return nil, nil
	}
	stem := firstTerm(terms.Terms(t.Text))
	if stem == "" {
		stem = strings.ToLower(t.Text)
	}
	lo := stem
	if n := runeOffset(stem, 2); n < len(stem) {
		lo = stem[:n]
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		cands, err := cache.Strings(ctx, p.tx, `SELECT term FROM vocabulary WHERE term >= ? AND term < ? LIMIT ?`,
			lo, lo+"\U0010FFFF", maxCandidates)
		if err != nil {
			return nil, err
		}
		for _, close := range fold.CloseMatches(stem, cands, maxSuggestions, suggestCutoff) {
			word, err := spelled(ctx, p, close)
			if err != nil {
				return nil, err
			}
			if word != "" && !seen[word] {
				seen[word] = true
				out = append(out, word)
			}
		}
	}
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out, nil
}

// spelled is a word of the first passage holding an indexed stem, as written there, then
// lowercased and accent-folded like the index.
func spelled(ctx context.Context, p *part, stem string) (string, error) {
	match := fold.Term{Text: stem}.Match()
	var id int64
	var cols [4]string
	err := p.tx.QueryRowContext(ctx, `SELECT rowid, title, text, names, context FROM search
		WHERE search MATCH ? LIMIT 1`, match).Scan(&id, &cols[0], &cols[1], &cols[2], &cols[3])
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	// snippet() is costly over a passage of many hits (see excerpt): such a passage is
	// read in chunks.
	words, stops := shape(strings.Join(cols[:], "\n"))
	var snip string
	if cheap(words, stops) {
		err = p.tx.QueryRowContext(ctx, `SELECT snippet(search, -1, char(1), char(2), '', 1) FROM search
			WHERE search MATCH ? AND rowid = ?`, match, id).Scan(&snip)
	} else {
		snip, err = chunks.snippet(ctx, match, cols, -1, "\x01", "\x02", "", 1)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(snip, "\x01")
	if !ok {
		return "", nil
	}
	word, _, ok := strings.Cut(rest, "\x02")
	if !ok || word == "" || strings.Contains(word, "\x01") {
		return "", nil
	}
	if folded := firstTerm(terms.Folded(word)); folded != "" {
		return folded, nil
	}
	return strings.ToLower(word), nil
}

func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// firstTerm returns the first of some terms in byte order, or "".
func firstTerm(ts []string) string {
	if len(ts) == 0 {
		return ""
	}
	return slices.Min(ts)
}
