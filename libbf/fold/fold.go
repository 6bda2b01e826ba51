// Package fold holds the text folding shared by the search index and search queries, the
// parsing of a query into FTS5 terms, and the close-word matching behind suggestions.
// It is pure: no SQL and no I/O.
//
// Folding is Unicode NFKC only. Case is left to the FTS5 unicode61 tokenizer, which
// lowercases; a Unicode case fold would turn ß into ss, a form the index never holds.
package fold

import "golang.org/x/text/unicode/norm"

// Text returns s in NFKC: ligatures (ﬁ), full-width letters and superscripts (²) become
// their plain forms and accents are composed. Case and scripts are left alone. A string
// already in NFKC is returned unchanged, without copying.
func Text(s string) string {
	if norm.NFKC.IsNormalString(s) {
		return s
	}
	return norm.NFKC.String(s)
}
