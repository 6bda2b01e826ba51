package fold

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Expected values were computed independently of this implementation.
func TestCloseMatches(t *testing.T) {
	long1 := strings.Repeat("a", 150) + strings.Repeat("b", 60)
	long2 := "x" + strings.Repeat("a", 250) + "y"
	long3 := strings.Repeat("abcdefghij", 25)
	for _, tc := range []struct {
		word       string
		candidates []string
		n          int
		cutoff     float64
		want       []string
	}{
		{"appel", []string{"ape", "apple", "peach", "puppy"}, 3, 0.6, []string{"apple", "ape"}},
		// Equal scores: the larger candidate first (heapq.nlargest over (score, x)).
		{"wheel", []string{"while", "wheat", "whale", "wheal", "heel"}, 3, 0.6, []string{"heel", "wheal", "while"}},
		{"wheel", []string{"while", "wheat", "whale", "wheal", "heel"}, 2, 0.75, []string{"heel", "wheal"}},
		{"abcd", []string{"abdc", "bacd", "acbd", "dcba", "abce", "abcf"}, 3, 0.6, []string{"bacd", "acbd", "abdc"}},
		{"abcd", []string{"abdc", "bacd", "acbd", "dcba", "abce", "abcf"}, 6, 0, []string{"bacd", "acbd", "abdc", "abcf", "abce", "dcba"}},
		{"abcd", []string{"abce", "abcf", "abcg", "abch"}, 3, 0.7, []string{"abch", "abcg", "abcf"}},
		{"ab", []string{"ba", "ab", "aa", "bb"}, 4, 0, []string{"ab", "bb", "ba", "aa"}},
		{"aaab", []string{"abaa", "aaba", "baaa", "aaab"}, 3, 0.7, []string{"aaab", "baaa", "aaba"}},
		{"retention", []string{"retent", "retent", "retent", "retention", "retention"}, 4, 0.6, []string{"retention", "retention", "retent", "retent"}},
		// Suggestion-like stems at the search cutoff.
		{"retension", []string{"retent", "retention", "retens", "reten", "return", "retina"}, 3, 0.75, []string{"retention", "retens"}},
		{"polici", []string{"polic", "polici", "police", "politic", "polish", "pole"}, 3, 0.75, []string{"polici", "polic", "police"}},
		{"synchron", []string{"synchronis", "synchrotron", "synchron", "synonym", "symphoni"}, 3, 0.75, []string{"synchron", "synchronis", "synchrotron"}},
		// Characters, not bytes.
		{"café", []string{"cafe", "cafés", "caf", "café"}, 3, 0.6, []string{"café", "cafés", "caf"}},
		{"résumé", []string{"resume", "résumés", "rêsumé", "résume"}, 3, 0.75, []string{"résumés", "rêsumé", "résume"}},
		{"ünïcode", []string{"unicode", "ünicode", "ünïcöde", "ünïcode"}, 3, 0.5, []string{"ünïcode", "ünïcöde", "ünicode"}},
		{"αβγδ", []string{"αβγ", "αβδγ", "βγδ"}, 3, 0.6, []string{"βγδ", "αβγ", "αβδγ"}},
		// Empty strings and lists.
		{"", []string{"", "a"}, 3, 0, []string{"", "a"}},
		{"x", nil, 3, 0.6, []string{}},
		// Autojunk: in a word of 200+ characters, characters above 1% are popular and
		// only join a match by extension.
		{long1, []string{long1, strings.Repeat("b", 60) + strings.Repeat("a", 150), strings.Repeat("ab", 105), strings.Repeat("a", 210)}, 4, 0,
			[]string{long1, strings.Repeat("a", 210), strings.Repeat("ab", 105), strings.Repeat("b", 60) + strings.Repeat("a", 150)}},
		{long2, []string{"xay", long2, strings.Repeat("a", 100) + "xy", "xy" + strings.Repeat("a", 50)}, 4, 0,
			[]string{long2, "xay", "xy" + strings.Repeat("a", 50), strings.Repeat("a", 100) + "xy"}},
		{long3, []string{long3, strings.Repeat("jihgfedcba", 25), strings.Repeat("abcdefghij", 10), strings.Repeat("bcdefghija", 25), strings.Repeat("a", 250)}, 5, 0,
			[]string{long3, strings.Repeat("abcdefghij", 10), strings.Repeat("a", 250), strings.Repeat("jihgfedcba", 25), strings.Repeat("bcdefghija", 25)}},
	} {
		got := CloseMatches(tc.word, tc.candidates, tc.n, tc.cutoff)
		if got == nil {
			got = []string{}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("CloseMatches(%.20q, …, %d, %v) (-want +got):\n%s", tc.word, tc.n, tc.cutoff, diff)
		}
	}
}

// Out-of-range arguments give no matches rather than an error.
func TestCloseMatchesBadArguments(t *testing.T) {
	for _, tc := range []struct {
		n      int
		cutoff float64
	}{{0, 0.6}, {-1, 0.6}, {3, -0.1}, {3, 1.1}} {
		if got := CloseMatches("apple", []string{"apple"}, tc.n, tc.cutoff); got != nil {
			t.Errorf("CloseMatches(n=%d, cutoff=%v) = %q, want nil", tc.n, tc.cutoff, got)
		}
	}
}

// Ratios computed independently of this implementation, including the effect of popular
// characters on a long b.
func TestMatcherRatio(t *testing.T) {
	long2 := "x" + strings.Repeat("a", 250) + "y"
	for _, tc := range []struct {
		a, b string
		want float64
	}{
		{"apple", "appel", 0.8},
		{"ape", "appel", 0.75},
		{"heel", "wheel", 0.8888888888888888},
		{"retens", "retension", 0.8},
		{"polish", "polici", 0.6666666666666666},
		{strings.Repeat("bcdefghija", 25), strings.Repeat("abcdefghij", 25), 0},
		{strings.Repeat("a", 100) + "xy", long2, 0.011299435028248588},
	} {
		if got := newMatcher([]rune(tc.b)).ratio([]rune(tc.a)); got != tc.want {
			t.Errorf("ratio(%.12q, %.12q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
