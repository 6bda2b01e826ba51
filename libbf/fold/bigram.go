package fold

import (
	"strings"
	"unicode"
)

// unspaced reports a letter of a script written without spaces between words: Han,
// Hiragana, Katakana, Hangul and Thai.
func unspaced(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai)
}

// runs returns the runs of unspaced letters of s.
func runs(s string) [][]rune {
	var out [][]rune
	var cur []rune
	for _, r := range s {
		if unspaced(r) {
			cur = append(cur, r)
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// bigramsOf lists a run's overlapping character pairs; a one-letter run is itself.
func bigramsOf(run []rune) []string {
	if len(run) == 1 {
		return []string{string(run)}
	}
	out := make([]string, 0, len(run)-1)
	for i := 0; i+1 < len(run); i++ {
		out = append(out, string(run[i:i+2]))
	}
	return out
}

// Bigrams is the text of s's unspaced runs as overlapping character bigrams separated by
// spaces, one run after another ("果樹園の記録" gives "果樹 樹園 園の の記 記録"), or ""
// when s holds none. Indexed as words, they let a word inside a run be found.
func Bigrams(s string) string {
	if !mayHoldUnspaced(s) {
		return ""
	}
	var parts []string
	for _, r := range runs(s) {
		parts = append(parts, strings.Join(bigramsOf(r), " "))
	}
	return strings.Join(parts, " ")
}

// BigramQuery is the full-text query finding the unspaced runs of the terms inside
// longer runs: each run's bigrams as a phrase, phrases joined by OR; "" when no term
// holds an unspaced run.
func BigramQuery(terms []Term) string {
	var phrases []string
	for _, p := range BigramPhrases(terms) {
		phrases = append(phrases, p.Phrase)
	}
	return strings.Join(phrases, " OR ")
}

// BigramPhrase is one unspaced run of a query term ("記録") with the full-text phrase of
// its bigrams, which finds the run inside a longer one.
type BigramPhrase struct {
	Run, Phrase string
}

// BigramPhrases lists the unspaced runs of the terms, in query order.
func BigramPhrases(terms []Term) []BigramPhrase {
	var out []BigramPhrase
	for _, t := range terms {
		for _, r := range runs(Text(t.Text)) {
			out = append(out, BigramPhrase{Run: string(r), Phrase: `"` + strings.Join(bigramsOf(r), " ") + `"`})
		}
	}
	return out
}

// mayHoldUnspaced reports whether s holds a character of three or more UTF-8 bytes: every
// unspaced letter (U+0E00 and above) is one, so a text without any, such as most English
// passages, needs no decoding.
func mayHoldUnspaced(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xe0 {
			return true
		}
	}
	return false
}
