package fold

import (
	"testing"

	"golang.org/x/text/unicode/norm"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", ""},
		{"ascii", "Plain text, 42!", "Plain text, 42!"},
		{"ligature", "ﬁle ﬂow", "file flow"},
		{"full-width", "ＡＢＣ１２３ｘ", "ABC123x"},
		{"superscript", "m²", "m2"},
		{"composed accent", "re\u0301sume\u0301", "résumé"},
		{"case kept", "Résumé RÉSUMÉ", "Résumé RÉSUMÉ"},
		{"sharp s kept", "Straße STRASSE ẞ", "Straße STRASSE ẞ"},
		{"greek kept", "ή η Ή", "ή η Ή"},
		{"cyrillic kept", "ё е Ё", "ё е Ё"},
		{"greek composed", "η\u0301", "ή"},
		{"cjk kept", "日本語のテキスト", "日本語のテキスト"},
		{"half-width katakana", "ｶﾀｶﾅ", "カタカナ"},
		{"roman numeral", "Ⅻ", "XII"},
		{"fraction", "½", "1\u20442"},
		{"no-break space", "a\u00a0b", "a b"},
		{"ellipsis", "wait…", "wait..."},
		{"full-width quotes", "＂x＂", `"x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Text(tc.in)
			if got != tc.want {
				t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if !norm.NFKC.IsNormalString(got) || Text(got) != got {
				t.Errorf("Text(%q) = %q is not stable", tc.in, got)
			}
		})
	}
}
