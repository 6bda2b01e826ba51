package terms_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/terms"
	"github.com/bfgo/bf/libbf/terms/termstest"
	"github.com/google/go-cmp/cmp"
)

func TestTerms(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Running dogs, CATS and ponies!", []string{"run", "dog", "cat", "and", "poni"}},
		{"relational conditional rational valency hesitancy", []string{"relat", "condit", "ration", "valenc", "hesit"}},
		{"digitizer conformabli radicalli differentli vileli analogousli", []string{"digit", "conform", "radic", "differ", "vile", "analog"}},
		{"caresses ponies ties caress cats feed agreed plastered bled motoring sing", []string{"caress", "poni", "ti", "caress", "cat", "feed", "agre", "plaster", "bled", "motor", "sing"}},
		{"conflated troubled sized hopping tanned falling hissing fizzed failing filing", []string{"conflat", "troubl", "size", "hop", "tan", "fall", "hiss", "fizz", "fail", "file"}},
		{"happy sky generalization oscillator", []string{"happi", "sky", "gener", "oscil"}},
		// Short and long terms are not stemmed; y after a first letter counts as a vowel.
		{"is as yes aed eed " + strings.Repeat("abc", 22) + "s", []string{"is", "as", "ye", "a", "e", strings.Repeat("abc", 22) + "s"}},
		// Accents go, case folds, marks inside a word stay joined to it.
		{"Élan CAFÉ naïve Straße ǅemal", []string{"elan", "cafe", "naiv", "straß", "ǆemal"}},
		{"e\u0301t\u00e9 ﬁn Ｆｕｌｌ", []string{"et", "ﬁn", "ｆｕｌｌ"}},
		// Separators: punctuation, symbols, U+FFFD; underscores and apostrophes too.
		{"snake_case don't a+b=c © x\ufffdy", []string{"snake", "case", "don", "t", "a", "b", "c", "x", "y"}},
		// Invalid UTF-8 as SQLite reads it: a stray continuation byte is its own code point
		// (0xAA is ª, a letter), an overlong form is U+FFFD.
		{"a\xaab c\xc0\x80d \xf4\x90\x80\x80", []string{"aªb", "c", "d", "\xf4\x90\x80\x80"}},
		{"日本語のテキスト 中文", []string{"日本語のテキスト", "中文"}},
	} {
		if got := terms.Terms(c.in); !cmp.Equal(c.want, got) {
			t.Errorf("Terms(%q):\n%s", c.in, cmp.Diff(c.want, got))
		}
	}
}

// TestTermsFTS5 compares the terms of generated texts with those FTS5 indexes, stemmed and
// not, term by term and position by position: words with every stemmer suffix, letters of many scripts,
// accents alone and joined, symbols, invalid UTF-8 and terms over FTS5's length limit.
func TestTermsFTS5(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 1))
	var texts []string
	for range 6000 {
		texts = append(texts, fuzzText(rng))
	}
	texts = append(texts, strings.Repeat("x", terms.MaxTerm+5), strings.Repeat("é", terms.MaxTerm/2+3)+"s", "a"+strings.Repeat("\u0301", 40000))
	for name, compare := range map[string]func(context.Context, []string) (int, error){
		"stemmed": termstest.CompareTexts, "folded": termstest.CompareFolded,
	} {
		n, err := compare(context.Background(), texts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n < 40000 {
			t.Fatalf("%s: compared %d instances, want at least 40,000", name, n)
		}
	}
}

// fuzzPieces are what generated texts are made of.
var fuzzPieces = []string{
	"relational", "conditional", "rational", "valenci", "hesitanci", "digitizer", "conformabli", "radicalli",
	"differentli", "vileli", "analogousli", "vietnamization", "predication", "operator", "feudalism",
	"decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti", "sensibiliti", "triplicate",
	"formative", "formalize", "electriciti", "electrical", "hopeful", "goodness", "revival", "allowance",
	"inference", "airliner", "gyroscopic", "adjustable", "defensible", "irritant", "replacement",
	"adjustment", "dependent", "adoption", "homologou", "communism", "activate", "angulariti", "homologous",
	"effective", "bowdlerize", "probate", "rate", "cease", "controll", "roll", "caresses", "ponies", "ties",
	"caress", "cats", "feed", "agreed", "plastered", "bled", "motoring", "sing", "conflated", "troubled",
	"sized", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing", "happy", "sky",
	"yyy", "ays", "eed", "ied", "ing", "ed", "s", "ss", "sses", "ies", "y", "oy", "boy", "boys", "toying",
	"Ångström", "Œuvre", "ǅ", "İstanbul", "ΣΊΣΥΦΟΣ", "Привет", "Ⅻ", "ⓐⓑ", "Ｆｕｌｌ", "ﬁ", "²", "日本語",
	"한국어", "ไทย", "عربى", "עברית", "हिन्दी", "𐐀𐐨", "𝒜𝓈", "🙂", "\u0301", "\u0308", "\u0327", "\u20dd",
	"\u200d", "\ufeff", "\ufffd", "\U000F0000", "\U00100000", "\U0010FFFD", "\xaa", "\xa9", "\xc0\x80",
	"\xed\xa0\x80", "\xef\xbf\xbe", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "\xc3", "\xe2\x82", "\x00",
	"_", "'", "-", ".", ",", "+", "#", "©", "°", "·", "\u00a0", "\u3000", "\t", "\n", " ", " ", " ",
}

func fuzzText(rng *rand.Rand) string {
	var b strings.Builder
	for range 1 + rng.IntN(40) {
		switch rng.IntN(6) {
		case 0:
			b.WriteRune(rune(rng.IntN(0x110000)))
		case 1:
			b.WriteByte(byte(rng.IntN(256)))
		case 2:
			b.WriteString(strings.ToUpper(fuzzPieces[rng.IntN(len(fuzzPieces))]))
		default:
			b.WriteString(fuzzPieces[rng.IntN(len(fuzzPieces))])
		}
		if rng.IntN(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func ExampleTerms() {
	fmt.Println(terms.Terms("The runners' Café, running fast"))
	// Output: [the runner cafe run fast]
}

// TestEachStarting: over generated texts and random sets of first bytes, EachStarting
// gives exactly the terms of Each whose first byte is marked, in order, and counts them all;
// EachStartingAt gives each at its place among all the terms.
func TestEachStarting(t *testing.T) {
	rng := rand.New(rand.NewPCG(38, 2))
	var c terms.Cutter
	for range 3000 {
		s := fuzzText(rng)
		var first [256]bool
		for range rng.IntN(40) {
			first[rng.IntN(256)] = true
		}
		if rng.IntN(4) == 0 {
			for b := range first {
				first[b] = true
			}
		}
		var want []string
		all := terms.Terms(s)
		for _, term := range all {
			if term != "" && first[term[0]] {
				want = append(want, term)
			}
		}
		var got []string
		n := c.EachStarting(s, &first, func(term []byte) { got = append(got, string(term)) })
		if n != len(all) || !cmp.Equal(want, got) {
			t.Fatalf("EachStarting(%q): %d terms of %d\n%s", s, n, len(all), cmp.Diff(want, got))
		}
		c.EachStartingAt(s, &first, func(term []byte, at int) {
			if at < 0 || at >= len(all) || all[at] != string(term) {
				t.Fatalf("EachStartingAt(%q): %q at %d, but the terms are %q", s, term, at, all)
			}
		})
	}
}
