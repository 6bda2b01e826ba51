package fold

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/google/go-cmp/cmp"
)

// Term constructors for the tables.
func word(s string) Term    { return Term{Text: s} }
func prefix(s string) Term  { return Term{Text: s, Prefix: true} }
func acronym(s string) Term { return Term{Text: s, Acronym: true} }
func quoted(s string) Term {
	return Term{Text: s, Quoted: true, Phrase: strings.Contains(s, " "), Acronym: isAcronym(s)}
}

func words(prefix string, n int) (query string, terms []Term) {
	var parts []string
	for i := 1; i <= n; i++ {
		w := fmt.Sprintf("%s%d", prefix, i)
		parts = append(parts, w)
		terms = append(terms, word(w))
	}
	return strings.Join(parts, " "), terms
}

func TestParseTerms(t *testing.T) {
	q40, t40 := words("w", 40)
	q32, t32 := words("w", 32)
	for _, tc := range []struct {
		name, in string
		want     []Term
	}{
		{"plain", "Atlas SQLite", []Term{word("Atlas"), word("SQLite")}},
		{"punctuation separates", "Why does Atlas use SQLite?", []Term{word("Atlas"), word("use"), word("SQLite")}},
		{"digits", "budget 2026", []Term{word("budget"), word("2026")}},

		// Folding happens before scanning.
		{"ligature", "ﬁle", []Term{word("file")}},
		{"full-width", "ＳＱＬｉｔｅ", []Term{word("SQLite")}},
		{"superscript", "m² price", []Term{word("m2"), word("price")}},
		{"sharp s", "Straße", []Term{word("Straße")}},
		{"greek and cyrillic", "ήλιος ёлка", []Term{word("ήλιος"), word("ёлка")}},
		{"composed", "re\u0301sume\u0301", []Term{word("résumé")}},

		// Words are runs of letters and digits; '_' separates.
		{"underscore", "snake_case_name", []Term{word("snake"), word("case"), word("name")}},
		{"apostrophe", "l'équipe", []Term{word("équipe")}},
		{"hyphen", "state-of-the-art", []Term{word("state"), word("art")}},

		// Distinct by lower-case key, first spelling kept.
		{"distinct", "Atlas atlas ATLAS", []Term{word("Atlas")}},
		{"distinct acronym first", "ATLAS Atlas", []Term{acronym("ATLAS")}},
		{"distinct quoted", `atlas "Atlas"`, []Term{word("atlas")}},
		{"distinct quoted first", `"Atlas" atlas`, []Term{quoted("Atlas")}},
		{"prefix differs from word", "data data* DATA Data*", []Term{word("data"), prefix("data")}},
		{"distinct before function words", `son "son" roman`, []Term{word("roman")}},

		// Function words.
		{"english dropped", "how is the budget of it", []Term{word("budget")}},
		{"french dropped", "où est le budget de la maison", []Term{word("budget"), word("maison")}},
		{"capitalized dropped", "The Budget", []Term{word("Budget")}},
		{"stemming variants dropped", "having ones doing ours budget", []Term{word("budget")}},
		{"single capital dropped", "I need A budget", []Term{word("need"), word("budget")}},
		{"notably kept", "comment resume active", []Term{word("comment"), word("resume"), word("active")}},
		{"accented kept when unlisted", "ete budget", []Term{word("ete"), word("budget")}},
		{"quoted kept", `"son" histoire`, []Term{quoted("son"), word("histoire")}},
		{"curly quoted kept", `“the” budget`, []Term{quoted("the"), word("budget")}},
		{"acronym kept", "IT policy", []Term{acronym("IT"), word("policy")}},
		{"acronym among words", "EU AI Act", []Term{acronym("EU"), acronym("AI"), word("Act")}},
		{"not an acronym", "It policy", []Term{word("policy")}},
		{"accented acronym", "OÙ atlas", []Term{acronym("OÙ"), word("atlas")}},
		{"acronym with digit", "A1 grade", []Term{acronym("A1"), word("grade")}},
		{"all function words kept", "to be or not to be", []Term{word("to"), word("be"), word("or"), word("not")}},
		{"all french kept", "à été", []Term{word("à"), word("été")}},
		{"function word prefix dropped", "the* budget", []Term{word("budget")}},
		{"function word prefix alone", "the*", []Term{prefix("the")}},

		// Operators.
		{"operators dropped", "cats AND dogs OR birds", []Term{word("cats"), word("dogs"), word("birds")}},
		{"operators with function words", "the AND a", []Term{word("the"), word("a")}},
		{"operators only", "AND OR", nil},
		{"lower-case and is a word", "cats and dogs", []Term{word("cats"), word("dogs")}},
		{"mixed-case and is a word", "And", []Term{word("And")}},
		{"operator prefix dropped", "AND* cats", []Term{word("cats")}},
		{"operator spelled first", "AND and", []Term{word("and")}},
		{"quoted operator kept", `"AND" cats`, []Term{quoted("AND"), word("cats")}},

		// Phrases.
		{"phrase", `"quick brown fox" jumps`, []Term{quoted("quick brown fox"), word("jumps")}},
		{"curly phrase", "“hello, world!” again", []Term{quoted("hello world"), word("again")}},
		{"phrase punctuation", `"a-b_c  d"`, []Term{quoted("a b c d")}},
		{"phrase of function words", `"the end of it"`, []Term{quoted("the end of it")}},
		{"straight inside curly", `“say "hi" now”`, []Term{quoted("say hi now")}},
		{"empty phrases", `"" "!!!" “” x`, []Term{word("x")}},
		{"unclosed quote", `"open phrase`, []Term{word("open"), word("phrase")}},
		{"unclosed curly", "“open phrase", []Term{word("open"), word("phrase")}},
		{"mismatched quotes", `“mixed" up`, []Term{word("mixed"), word("up")}},
		{"closing curly alone", "p” q", []Term{word("p"), word("q")}},
		{"adjacent phrases", `"a b""c d"`, []Term{quoted("a b"), quoted("c d")}},
		{"phrase star is no prefix", `"phrase"* x`, []Term{quoted("phrase"), word("x")}},
		{"full-width quotes fold", "＂two words＂", []Term{quoted("two words")}},

		// Prefixes.
		{"prefix", "synchro* data", []Term{prefix("synchro"), word("data")}},
		{"double star", "synchro** x", []Term{prefix("synchro"), word("x")}},
		{"leading star", "*synchro", []Term{word("synchro")}},
		{"spaced star", "synchro *", []Term{word("synchro")}},

		// The first 32 terms.
		{"32 terms", q40, t40[:32]},
		{"exactly 32", q32, t32},
		{"cap after dropping", "the " + q40, t40[:32]},
		{"cap after distinct", "w1 W1 " + q40, t40[:32]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(Query{Terms: tc.want}, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     error
	}{
		{"empty", "", ErrNoWords},
		{"blank", " \t\n", ErrNoWords},
		{"punctuation", "!!!", ErrNoWords},
		{"underscores", "___", ErrNoWords},
		{"stars and quotes", `* "" “”`, ErrNoWords},
		{"too long", strings.Repeat("a", 4097), errQueryLength},
		{"too long in characters", strings.Repeat("é", 4097), errQueryLength},
		{"too long blank", strings.Repeat(" ", 4097), errQueryLength},
		{"identity with relation", "bf://brain/people/dana?rel=owner", ref.ErrIdentityRel},
		{"bad address", "bf://brain/../x", ref.ErrInvalidAddress},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if !errors.Is(err, tc.want) {
				t.Errorf("Parse(%.30q) = %+v, %v; want error %v", tc.in, got, err, tc.want)
			}
		})
	}
	if got, want := ErrNoWords.Error(), "give words or an identity to search; read a page such as today to list items"; got != want {
		t.Errorf("ErrNoWords = %q, want %q", got, want)
	}
	if !strings.Contains(errQueryLength.Error(), "4096") {
		t.Errorf("ErrQueryLength = %q does not name the limit", errQueryLength)
	}
}

// Identity-shaped queries that are not identities fail with ref's reason.
func TestParseBadIdentity(t *testing.T) {
	for _, in := range []string{
		"person:da\u200bna",
		"person:da\x00na",
		"x:\xff",
	} {
		_, err := Parse(in)
		want := ref.CheckIdentity(in)
		if err == nil || want == nil || err.Error() != want.Error() {
			t.Errorf("Parse(%q) error = %v, want %v", in, err, want)
		}
	}
}

func TestParseLengthLimit(t *testing.T) {
	for _, in := range []string{strings.Repeat("a", 4096), strings.Repeat("é", 4096), strings.Repeat("ab ", 1365) + "a"} {
		if _, err := Parse(in); err != nil {
			t.Errorf("Parse(%d characters): %v", len([]rune(in)), err)
		}
	}
}

func TestParseIdentity(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Query
	}{
		{"repository", "repo:github.com/owner/name", Query{
			Identity: "repo:github.com/owner/name",
			Terms:    []Term{word("repo"), word("github"), word("com"), word("owner"), word("name")},
		}},
		{"stripped", "  person:email/alice@x.test\n", Query{
			Identity: "person:email/alice@x.test",
			Terms:    []Term{word("person"), word("email"), word("alice"), word("x"), word("test")},
		}},
		{"unknown-looking", "re:invent", Query{Identity: "re:invent", Terms: []Term{word("re"), word("invent")}}},
		{"case kept", "repo:github.com/Example/Site", Query{
			Identity: "repo:github.com/Example/Site",
			Terms:    []Term{word("repo"), word("github"), word("com"), word("Example"), word("Site")},
		}},
		{"tag address", "bf://brain/tags/website", Query{
			Identity: "bf://brain/tags/website",
			Terms:    []Term{word("bf"), word("brain"), word("tags"), word("website")},
		}},
		{"address canonical", "bf://brain/people/d%61na#", Query{
			Identity: "bf://brain/people/dana",
			Terms:    []Term{word("bf"), word("brain"), word("people"), word("61na")},
		}},
		{"scheme chars", "a+b.c-d:x_y", Query{Identity: "a+b.c-d:x_y", Terms: []Term{word("b"), word("x")}}},
		{"identity of function words", "on:the", Query{Identity: "on:the", Terms: []Term{word("on"), word("the")}}},
		{"value not folded", "tag:ﬁle", Query{Identity: "tag:ﬁle", Terms: []Term{word("tag"), word("file")}}},
		// Not identity-shaped: a word search only.
		{"upper-case scheme", "Repo:x", Query{Terms: []Term{word("Repo"), word("x")}}},
		{"upper-case bf", "BF://brain/tags/website", Query{Terms: []Term{acronym("BF"), word("brain"), word("tags"), word("website")}}},
		{"space after colon", "repo: atlas", Query{Terms: []Term{word("repo"), word("atlas")}}},
		{"two words", "repo:x atlas", Query{Terms: []Term{word("repo"), word("x"), word("atlas")}}},
		{"no-break space", "repo:x\u00a0atlas", Query{Terms: []Term{word("repo"), word("x"), word("atlas")}}},
		{"digit first", "1x:atlas", Query{Terms: []Term{word("1x"), word("atlas")}}},
		{"empty value", "repo:", Query{Terms: []Term{word("repo")}}},
		{"underscore scheme", "my_repo:x", Query{Terms: []Term{word("repo"), word("x")}}},
		{"next line", "repo:x\u0085atlas", Query{Terms: []Term{word("repo"), word("x"), word("atlas")}}},
		{"information separator", "repo:x\x1fatlas", Query{Terms: []Term{word("repo"), word("x"), word("atlas")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Atlas SQLite", `"Atlas" OR "SQLite"`},
		{"synchro* data", `"synchro"* OR "data"`},
		{`"quick brown fox" jumps*`, `"quick brown fox" OR "jumps"*`},
		{"“l'été” budget", `"l été" OR "budget"`},
		{"single", `"single"`},
		{"AND OR", ``},
	} {
		q, err := Parse(tc.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if got := q.Match(); got != tc.want {
			t.Errorf("Parse(%q).Match() = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestTermMatchAndDisplay(t *testing.T) {
	for _, tc := range []struct {
		term           Term
		match, display string
	}{
		{word("atlas"), `"atlas"`, `atlas`},
		{prefix("synchro"), `"synchro"*`, `synchro*`},
		{quoted("son"), `"son"`, `"son"`},
		{quoted("quick brown fox"), `"quick brown fox"`, `"quick brown fox"`},
		{acronym("IT"), `"IT"`, `IT`},
		// Parse never yields a quote inside a term; Match escapes one anyway.
		{word(`say "hi"`), `"say ""hi"""`, `say "hi"`},
		{prefix(`a"`), `"a"""*`, `a"*`},
	} {
		if got := tc.term.Match(); got != tc.match {
			t.Errorf("%+v.Match() = %s, want %s", tc.term, got, tc.match)
		}
		if got := tc.term.Display(); got != tc.display {
			t.Errorf("%+v.Display() = %s, want %s", tc.term, got, tc.display)
		}
	}
	q := Query{Terms: []Term{word(`x"y`), prefix("z")}}
	if got, want := q.Match(), `"x""y" OR "z"*`; got != want {
		t.Errorf("Match() = %s, want %s", got, want)
	}
}

func TestIsFunctionWord(t *testing.T) {
	for _, w := range []string{"the", "The", "THE", "having", "où", "OÙ", "été", "être", "à", "y", "ones"} {
		if !IsFunctionWord(w) {
			t.Errorf("IsFunctionWord(%q) = false", w)
		}
	}
	for _, w := range []string{"comment", "resume", "active", "ou\u0300", "ete", "data", ""} {
		if IsFunctionWord(w) {
			t.Errorf("IsFunctionWord(%q) = true", w)
		}
	}
	if n := len(functionWords); n != 176 { // 90 English, 88 French, "me" and "on" in both
		t.Errorf("%d function words", n)
	}
}
