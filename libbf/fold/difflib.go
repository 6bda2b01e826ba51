package fold

import (
	"sort"
	"strings"
)

// CloseMatches returns up to n candidates whose similarity to word is at least cutoff,
// best first.
//
// Similarity is a ratio over Unicode characters: 2·M/T, where M counts the characters
// of the matching blocks found by Ratcliff–Obershelp and T is the length of both
// strings. Word is the second sequence, so in a word of 200 or more characters the
// characters that make up more than 1% of it never start a matching block. Two
// cheap upper bounds filter first: one from the lengths alone, one from the characters
// both strings share regardless of order. Results are ordered by score, then by
// candidate, both descending.
//
// For n <= 0 or a cutoff outside [0, 1] CloseMatches returns nil.
func CloseMatches(word string, candidates []string, n int, cutoff float64) []string {
	if n <= 0 || !(cutoff >= 0 && cutoff <= 1) {
		return nil
	}
	m := newMatcher([]rune(word))
	type scored struct {
		score float64
		s     string
	}
	var found []scored
	for _, c := range candidates {
		a := []rune(c)
		if ratio(min(len(a), len(m.b)), len(a)+len(m.b)) < cutoff ||
			m.quickRatio(a) < cutoff {
			continue
		}
		if r := m.ratio(a); r >= cutoff {
			found = append(found, scored{r, c})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].score != found[j].score {
			return found[i].score > found[j].score
		}
		return strings.Compare(found[i].s, found[j].s) > 0
	})
	if len(found) > n {
		found = found[:n]
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.s
	}
	return out
}

// ratio is the similarity 2·matches/length, 1 when both strings are empty.
func ratio(matches, length int) float64 {
	if length == 0 {
		return 1
	}
	return 2 * float64(matches) / float64(length)
}

// matcher compares strings against a fixed second sequence b. In a b of 200 or more
// characters, a character that occurs more than len(b)/100 + 1 times is popular: it is
// left out of b2j, so no matching block starts on it.
type matcher struct {
	b     []rune
	b2j   map[rune][]int // positions in b of each character, popular ones removed
	count map[rune]int   // occurrences in b of each character, for quickRatio
}

func newMatcher(b []rune) *matcher {
	m := &matcher{b: b, b2j: map[rune][]int{}, count: map[rune]int{}}
	for j, r := range b {
		m.b2j[r] = append(m.b2j[r], j)
		m.count[r]++
	}
	if n := len(b); n >= 200 {
		limit := n/100 + 1
		for r, js := range m.b2j {
			if len(js) > limit {
				delete(m.b2j, r)
			}
		}
	}
	return m
}

// quickRatio is an upper bound of ratio: the characters a and b share, ignoring order.
func (m *matcher) quickRatio(a []rune) float64 {
	avail := make(map[rune]int, len(a))
	matches := 0
	for _, r := range a {
		left, ok := avail[r]
		if !ok {
			left = m.count[r]
		}
		avail[r] = left - 1
		if left > 0 {
			matches++
		}
	}
	return ratio(matches, len(a)+len(m.b))
}

// ratio is the similarity of a to b.
func (m *matcher) ratio(a []rune) float64 {
	return ratio(m.matched(a, 0, len(a), 0, len(m.b)), len(a)+len(m.b))
}

// matched sums the sizes of the matching blocks within a[alo:ahi] and b[blo:bhi], as
// Ratcliff–Obershelp finds them: the longest match, then recursively both sides of it.
func (m *matcher) matched(a []rune, alo, ahi, blo, bhi int) int {
	total := 0
	for alo < ahi && blo < bhi {
		i, j, k := m.longest(a, alo, ahi, blo, bhi)
		if k == 0 {
			break
		}
		total += k
		if alo < i && blo < j {
			total += m.matched(a, alo, i, blo, j)
		}
		alo, blo = i+k, j+k
	}
	return total
}

// longest finds the longest block of characters a and b share that starts earliest in a,
// then earliest in b, using b2j (so never starting on a popular character), then
// extended over equal neighbours, popular ones included.
func (m *matcher) longest(a []rune, alo, ahi, blo, bhi int) (besti, bestj, bestk int) {
	besti, bestj = alo, blo
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		next := map[int]int{}
		for _, j := range m.b2j[a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			next[j] = k
			if k > bestk {
				besti, bestj, bestk = i-k+1, j-k+1, k
			}
		}
		j2len = next
	}
	for besti > alo && bestj > blo && a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestk = besti-1, bestj-1, bestk+1
	}
	for besti+bestk < ahi && bestj+bestk < bhi && a[besti+bestk] == m.b[bestj+bestk] {
		bestk++
	}
	return besti, bestj, bestk
}
