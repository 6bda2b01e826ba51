package search

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fold"

	_ "modernc.org/sqlite" // the driver of the in-memory tokenizer tables
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
			var one int
			err := p.tx.QueryRowContext(ctx, `SELECT 1 FROM search WHERE search MATCH ? LIMIT 1`, t.Match()).Scan(&one)
			if err == nil {
				found = true
				break
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return nil, err
			}
		}
		if !found {
			out = append(out, t)
		}
	}
	return out, nil
}

// suggest returns up to three words the parts hold close to an unmatched word: its stem,
// as the index holds it, compared with the indexed stems sharing its first two characters,
// each close stem shown as a passage spells it, lowercased and with accents folded.
// Phrases, prefixes and words shorter than four characters get none.
func suggest(ctx context.Context, parts []*part, t fold.Term) ([]string, error) {
	if t.Phrase || t.Prefix || strings.Contains(t.Text, " ") || utf8.RuneCountInString(t.Text) < minSuggestLen {
		return nil, nil
	}
	stem, err := tokens.term(ctx, stemmed, t.Text)
	if err != nil {
		return nil, err
	}
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
	folded, err := tokens.term(ctx, plain, word)
	if err != nil || folded == "" {
		return strings.ToLower(word), err
	}
	return folded, nil
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

// Tokenizer tables: stemmed indexes like the search table; plain only lowercases and folds
// accents.
const (
	stemmed = "stemmed"
	plain   = "plain"
)

// tokenizer runs words through FTS5 tokenizers in a private in-memory database.
type tokenizer struct {
	once  sync.Once
	mu    sync.Mutex
	db    *sql.DB
	err   error
	cache map[string]string
}

var tokens tokenizer

func (tk *tokenizer) init() {
	tk.db, tk.err = sql.Open("sqlite", "file:bf-search-tokens?mode=memory&cache=private")
	if tk.err != nil {
		return
	}
	tk.db.SetMaxOpenConns(1)
	tk.cache = map[string]string{}
}

// tokenTables creates the tables on a connection that lacks them: a new connection holds a
// new, empty in-memory database.
var tokenTables = []string{
	`CREATE VIRTUAL TABLE IF NOT EXISTS stemmed USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS stemmed_terms USING fts5vocab(stemmed, row)`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS plain USING fts5(x, tokenize='unicode61 remove_diacritics 2')`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS plain_terms USING fts5vocab(plain, row)`,
}

// term returns the first term the table's tokenizer makes of word, or "".
func (tk *tokenizer) term(ctx context.Context, table, word string) (string, error) {
	tk.once.Do(tk.init)
	if tk.err != nil {
		return "", tk.err
	}
	tk.mu.Lock()
	defer tk.mu.Unlock()
	key := table + "\x00" + word
	if t, ok := tk.cache[key]; ok {
		return t, nil
	}
	conn, err := tk.db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	for _, stmt := range tokenTables {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return "", err
		}
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO `+table+`(x) VALUES (?)`, word); err != nil {
		return "", err
	}
	var t string
	err = conn.QueryRowContext(ctx, `SELECT term FROM `+table+`_terms LIMIT 1`).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if _, derr := conn.ExecContext(ctx, `DELETE FROM `+table); err == nil {
		err = derr
	}
	if err != nil {
		return "", err
	}
	if len(tk.cache) < 4096 {
		tk.cache[key] = t
	}
	return t, nil
}
