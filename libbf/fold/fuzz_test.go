package fold

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"",
		"!!!",
		"Why does Atlas use SQLite?",
		`"quick brown fox" jumps*`,
		"“hello, world!” again",
		`“say "hi" now”`,
		`"unclosed phrase`,
		`"" "a""b"`,
		"EU AI Act",
		"to be or not to be",
		"cats AND dogs OR birds",
		"ﬁle ＳＱＬｉｔｅ m²",
		"snake_case*",
		"repo:github.com/owner/name",
		"bf://brain/people/dana?rel=owner",
		"person:da\u200bna",
		"re:invent\n",
		"où est l'équipe",
		strings.Repeat("w ", 40),
		"\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			return
		}
		if len(q.Terms) > maxTerms {
			t.Fatalf("Parse(%q): %d terms", s, len(q.Terms))
		}
		for _, term := range q.Terms {
			if term.Text == "" || strings.HasPrefix(term.Text, " ") || strings.HasSuffix(term.Text, " ") ||
				strings.Contains(term.Text, "  ") || strings.IndexFunc(term.Text, func(r rune) bool { return r != ' ' && !isWordRune(r) }) >= 0 {
				t.Fatalf("Parse(%q): bad term %+v", s, term)
			}
			if term.Phrase && !term.Quoted || term.Phrase != strings.Contains(term.Text, " ") {
				t.Fatalf("Parse(%q): bad flags %+v", s, term)
			}
			if !validMatch(term.Match()) {
				t.Fatalf("Parse(%q): term Match() = %s", s, term.Match())
			}
		}
		m := q.Match()
		if len(q.Terms) > 0 && !validMatch(m) || strings.Count(m, `"`)%2 != 0 {
			t.Fatalf("Parse(%q).Match() = %s", s, m)
		}
		if q.Identity != "" && !identityShaped(strings.TrimFunc(s, isSpace)) {
			t.Fatalf("Parse(%q): identity %q from a query that is not identity-shaped", s, q.Identity)
		}
	})
}

// validMatch reports whether m is FTS5 strings joined by " OR ", each "…" with inner
// quotes doubled and an optional '*' after it.
func validMatch(m string) bool {
	for {
		if !strings.HasPrefix(m, `"`) {
			return false
		}
		m = m[1:]
		for {
			i := strings.IndexByte(m, '"')
			if i < 0 {
				return false
			}
			m = m[i+1:]
			if !strings.HasPrefix(m, `"`) {
				break
			}
			m = m[1:]
		}
		m = strings.TrimPrefix(m, "*")
		if m == "" {
			return true
		}
		if !strings.HasPrefix(m, " OR ") {
			return false
		}
		m = m[len(" OR "):]
	}
}

func FuzzCloseMatches(f *testing.F) {
	f.Add("appel", "apple", "ape", 3, 0.6)
	f.Add("retension", "retention", "retens", 2, 0.75)
	f.Add(strings.Repeat("ab", 120), strings.Repeat("ba", 100), "", 1, 0.0)
	f.Fuzz(func(t *testing.T, word, c1, c2 string, n int, cutoff float64) {
		if !utf8.ValidString(word) || !utf8.ValidString(c1) || !utf8.ValidString(c2) {
			return
		}
		m := newMatcher([]rune(word))
		for _, c := range []string{c1, c2} {
			a := []rune(c)
			r, qr := m.ratio(a), m.quickRatio(a)
			rqr := ratio(min(len(a), len([]rune(word))), len(a)+len([]rune(word)))
			if r < 0 || r > 1 || r > qr || qr > rqr {
				t.Fatalf("%q vs %q: ratio %v, quick %v, real quick %v", c, word, r, qr, rqr)
			}
		}
		got := CloseMatches(word, []string{c1, c2}, n, cutoff)
		if len(got) > max(n, 0) {
			t.Fatalf("%d results for n=%d", len(got), n)
		}
	})
}
