package fold

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
)

// Query limits.
const (
	// MaxQueryLength is the longest query, in Unicode characters, before folding.
	MaxQueryLength = 4096
	// maxTerms is how many terms a query keeps, in the order written.
	maxTerms = 32
)

// Query errors. Neither quotes the query: it may hold personal data, and callers prefix
// the argument name ("invalid input: query: …").
var (
	errQueryLength = errors.New("longer than 4096 characters")
	ErrNoWords     = errors.New("give words or an identity to search; read a page such as today to list items")
)

// Term is one search term.
type Term struct {
	// Text is the word, or the words of a quoted phrase joined by single spaces, folded
	// but in the case written. It holds only letters, digits and spaces.
	Text string
	// Phrase is set for a quoted term of more than one word.
	Phrase bool
	// Prefix is set for a word written with a trailing '*'.
	Prefix bool
	// Quoted is set for a term written in "straight" or “curly” quotes.
	Quoted bool
	// Acronym is set when the term was written in upper case with at least two
	// characters, such as IT or AI; it then stays even if it spells a function word.
	Acronym bool
}

// Query is a parsed search query.
type Query struct {
	// Terms are the terms to search for, at most maxTerms. It is empty only when the
	// query held nothing but the AND and OR operators.
	Terms []Term
	// Identity is the canonical identity (ref.CanonicalIdentity) when the whole query,
	// stripped of surrounding white space, is identity-shaped; Terms then still hold
	// its words for the word search that runs when no brain knows the identity.
	Identity string
}

// Parse validates and parses a search query.
//
// The query is folded (Text), then read left to right: a phrase in "straight" or
// “curly” quotes gives its words joined by spaces; elsewhere each word (a run of letters
// and digits; '_' separates) is a term, and a '*' right after it makes it a prefix.
// A quote without its closing partner is ignored. Unquoted AND and OR, written in upper
// case, are operators and dropped. Terms are distinct by their lower-case text (a prefix
// and a whole word differ), keeping the first spelling. English and French function
// words drop unless quoted or written as an acronym, and all stay if all would drop.
// The first maxTerms terms are kept.
func Parse(q string) (Query, error) { return ParseWith(q, IsFunctionWord) }

// ParseWith is Parse with another test of which words drop as function words, such as one
// that also drops words whose stem is a function word (having, beings), which needs the
// index's stemmer.
func ParseWith(q string, isFunction func(word string) bool) (Query, error) {
	if utf8.RuneCountInString(q) > MaxQueryLength {
		return Query{}, errQueryLength
	}
	folded := Text(q)
	if strings.IndexFunc(folded, isWordRune) < 0 {
		return Query{}, ErrNoWords
	}
	var out Query
	if s := strings.TrimFunc(q, isSpace); identityShaped(s) {
		id, err := ref.CanonicalIdentity(s)
		if err != nil {
			return Query{}, err
		}
		out.Identity = id
	}
	terms := distinct(scan(folded))
	kept := terms[:0:0]
	for _, t := range terms {
		if t.Quoted || t.Acronym || !isFunction(t.Text) {
			kept = append(kept, t)
		}
	}
	if len(kept) > 0 {
		terms = kept
	}
	if len(terms) > maxTerms {
		terms = terms[:maxTerms:maxTerms]
	}
	if len(terms) > 0 {
		out.Terms = terms
	}
	return out, nil
}

// scan reads the terms of folded query text in order, without the AND/OR operators.
func scan(s string) []Term {
	var terms []Term
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"' || r == '“':
			closing := "\""
			if r == '“' {
				closing = "”"
			}
			end := strings.Index(s[i+size:], closing)
			if end < 0 {
				i += size // an unclosed quote is only a separator
				continue
			}
			inner := s[i+size : i+size+end]
			i += size + end + len(closing)
			words := strings.FieldsFunc(inner, func(r rune) bool { return !isWordRune(r) })
			if len(words) == 0 {
				continue
			}
			text := strings.Join(words, " ")
			terms = append(terms, Term{Text: text, Phrase: len(words) > 1, Quoted: true, Acronym: isAcronym(text)})
		case isWordRune(r):
			end := strings.IndexFunc(s[i:], func(r rune) bool { return !isWordRune(r) })
			if end < 0 {
				end = len(s) - i
			}
			word := s[i : i+end]
			i += end
			prefix := strings.HasPrefix(s[i:], "*")
			if prefix {
				i++
			}
			if word == "AND" || word == "OR" {
				continue
			}
			terms = append(terms, Term{Text: word, Prefix: prefix, Acronym: isAcronym(word)})
		default:
			i += size
		}
	}
	return terms
}

// distinct keeps the first term of each lower-case key.
func distinct(terms []Term) []Term {
	seen := make(map[string]bool, len(terms))
	out := terms[:0]
	for _, t := range terms {
		k := lower(t.Text)
		if t.Prefix {
			k += "*"
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	return out
}

// Match returns the FTS5 MATCH expression: every term as a string, joined by OR. It is
// empty when there are no terms.
func (q Query) Match() string {
	var b strings.Builder
	for i, t := range q.Terms {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(t.Match())
	}
	return b.String()
}

// Match returns the term as an FTS5 string, such as "word", "two words" or "pre"*,
// with any '"' inside doubled.
func (t Term) Match() string {
	s := `"` + strings.ReplaceAll(t.Text, `"`, `""`) + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}

// Display returns the term as a reply shows it in unmatched: quoted terms in straight
// quotes, prefixes with their '*', other words as they are.
func (t Term) Display() string {
	s := t.Text
	if t.Quoted {
		s = `"` + s + `"`
	}
	if t.Prefix {
		s += "*"
	}
	return s
}

// isWordRune reports a letter or a digit: a word character other than '_'.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// isSpace reports white space: Go's, plus the ASCII information separators U+001C–U+001F,
// the same test the note package uses for slugs.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// identityShaped reports whether s matches [a-z][a-z0-9+.-]*:\S+ in full, the shape that
// makes a query an identity query. ref.CanonicalIdentity then decides whether it is a
// well-formed one.
func identityShaped(s string) bool {
	scheme, value, ok := strings.Cut(s, ":")
	if !ok || scheme == "" || value == "" || scheme[0] < 'a' || scheme[0] > 'z' {
		return false
	}
	for i := 1; i < len(scheme); i++ {
		c := scheme[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-') {
			return false
		}
	}
	return strings.IndexFunc(value, isSpace) < 0
}

// isAcronym reports a term written in upper case with at least two characters: some
// cased character, none lower or title case.
func isAcronym(s string) bool {
	if utf8.RuneCountInString(s) < 2 {
		return false
	}
	cased := false
	for _, r := range s {
		switch {
		case unicode.IsLower(r) || unicode.IsTitle(r):
			return false
		case unicode.IsUpper(r):
			cased = true
		}
	}
	return cased
}

// lower is the lower-case key of a term.
func lower(s string) string { return strings.ToLower(s) }
