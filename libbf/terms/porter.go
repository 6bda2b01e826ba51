package terms

// The Porter stemmer as FTS5 runs it (fts5_tokenize.c), which differs from the published
// algorithm in small ways kept here: it works on bytes, leaves terms shorter than three or
// longer than 64 bytes alone, counts y as a vowel after any first letter when asking whether
// a stem holds a vowel, and takes, within each step, the first rule whose suffix matches
// (with at least one byte before it) even when that rule's condition then fails.

// maxStemmed is the longest term the stemmer changes, in bytes (FTS5_PORTER_MAX_TOKEN).
const maxStemmed = 64

// stemmed returns the stem of term, in c's buffer when it differs.
func (c *Cutter) stemmed(term []byte) []byte {
	if len(term) < 3 || len(term) > maxStemmed {
		return term
	}
	b := c.stem[:copy(c.stem[:], term)]

	b = step1a(b)
	if s, ok := step1b(b); ok {
		b = s
		if s, ok := replaceFirst(b, step1b2); ok {
			b = s
		} else if last := b[len(b)-1]; !isVowel(last, false) && last != 'l' && last != 's' && last != 'z' &&
			len(b) > 1 && last == b[len(b)-2] {
			b = b[:len(b)-1]
		} else if measureIs1(b) && endsCVC(b) {
			b = append(b, 'e')
		}
	} else {
		b = s
	}
	if b[len(b)-1] == 'y' && hasVowel(b[:len(b)-1]) {
		b[len(b)-1] = 'i'
	}
	b, _ = replaceFirst(b, step2)
	b, _ = replaceFirst(b, step3)
	b, _ = replaceFirst(b, step4)
	if n := len(b) - 1; b[n] == 'e' && (measureOver1(b[:n]) || measureIs1(b[:n]) && !endsCVC(b[:n])) {
		b = b[:n]
	}
	if n := len(b); n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && measureOver1(b[:n-1]) {
		b = b[:n-1]
	}
	return b
}

// A rule replaces suffix by output when the stem before it meets cond (nil: always).
type rule struct {
	suffix, output string
	cond           func(stem []byte) bool
}

// A step is the rules of one step of the stemmer by the second to last byte of their
// suffix, which is all a term's end can match (FTS5 switches on that byte too).
type step [256][]rule

func newStep(rules []rule) *step {
	var s step
	for _, r := range rules {
		c := r.suffix[len(r.suffix)-2]
		s[c] = append(s[c], r)
	}
	return &s
}

// replaceFirst applies the first rule of s whose suffix ends b with at least one byte
// before it, and reports whether it changed b; the rules after it are not tried.
func replaceFirst(b []byte, s *step) ([]byte, bool) {
	if len(b) < 3 {
		return b, false
	}
	for _, r := range s[b[len(b)-2]] {
		n := len(b) - len(r.suffix)
		if n < 1 || string(b[n:]) != r.suffix {
			continue
		}
		if r.cond != nil && !r.cond(b[:n]) {
			return b, false
		}
		return append(b[:n], r.output...), true
	}
	return b, false
}

// step1a removes plural endings: sses and ies lose two bytes, another s one, ss stays.
func step1a(b []byte) []byte {
	n := len(b)
	if b[n-1] != 's' {
		return b
	}
	if b[n-2] == 'e' {
		if n > 4 && b[n-4] == 's' && b[n-3] == 's' || n > 3 && b[n-3] == 'i' {
			return b[:n-2]
		}
		return b[:n-1]
	}
	if b[n-2] != 's' {
		return b[:n-1]
	}
	return b
}

// step1b removes ed and ing after a stem with a vowel (eed becomes ee after a stem of
// measure > 0), reporting whether ed or ing went.
func step1b(b []byte) ([]byte, bool) {
	for _, r := range []struct {
		suffix, output string
		cond           func([]byte) bool
		removes        bool
	}{
		{"eed", "ee", measureOver0, false},
		{"ed", "", hasVowel, true},
		{"ing", "", hasVowel, true},
	} {
		n := len(b) - len(r.suffix)
		if n < 1 || string(b[n:]) != r.suffix {
			continue
		}
		if !r.cond(b[:n]) {
			return b, false
		}
		return append(b[:n], r.output...), r.removes
	}
	return b, false
}

var step1b2 = newStep([]rule{
	{"at", "ate", nil},
	{"bl", "ble", nil},
	{"iz", "ize", nil},
})

var step2 = newStep([]rule{
	{"ational", "ate", measureOver0},
	{"tional", "tion", measureOver0},
	{"enci", "ence", measureOver0},
	{"anci", "ance", measureOver0},
	{"izer", "ize", measureOver0},
	{"logi", "log", measureOver0},
	{"bli", "ble", measureOver0},
	{"alli", "al", measureOver0},
	{"entli", "ent", measureOver0},
	{"eli", "e", measureOver0},
	{"ousli", "ous", measureOver0},
	{"ization", "ize", measureOver0},
	{"ation", "ate", measureOver0},
	{"ator", "ate", measureOver0},
	{"alism", "al", measureOver0},
	{"iveness", "ive", measureOver0},
	{"fulness", "ful", measureOver0},
	{"ousness", "ous", measureOver0},
	{"aliti", "al", measureOver0},
	{"iviti", "ive", measureOver0},
	{"biliti", "ble", measureOver0},
})

var step3 = newStep([]rule{
	{"ical", "ic", measureOver0},
	{"ness", "", measureOver0},
	{"icate", "ic", measureOver0},
	{"iciti", "ic", measureOver0},
	{"ful", "", measureOver0},
	{"ative", "", measureOver0},
	{"alize", "al", measureOver0},
})

var step4 = newStep([]rule{
	{"al", "", measureOver1},
	{"ance", "", measureOver1},
	{"ence", "", measureOver1},
	{"er", "", measureOver1},
	{"ic", "", measureOver1},
	{"able", "", measureOver1},
	{"ible", "", measureOver1},
	{"ant", "", measureOver1},
	{"ement", "", measureOver1},
	{"ment", "", measureOver1},
	{"ent", "", measureOver1},
	{"ion", "", func(stem []byte) bool {
		last := stem[len(stem)-1]
		return (last == 's' || last == 't') && measureOver1(stem)
	}},
	{"ou", "", measureOver1},
	{"ism", "", measureOver1},
	{"ate", "", measureOver1},
	{"iti", "", measureOver1},
	{"ous", "", measureOver1},
	{"ive", "", measureOver1},
	{"ize", "", measureOver1},
})

// isVowel tells a vowel; y is one after a consonant.
func isVowel(c byte, afterConsonant bool) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || afterConsonant && c == 'y'
}

// vowelConsonant returns the length of the shortest prefix of stem made of consonants,
// then vowels, then one consonant, or 0 when there is none; afterConsonant tells whether
// stem follows a consonant.
func vowelConsonant(stem []byte, afterConsonant bool) int {
	consonant := afterConsonant
	i := 0
	for ; i < len(stem); i++ {
		if consonant = !isVowel(stem[i], consonant); !consonant {
			break
		}
	}
	for i++; i < len(stem); i++ {
		if consonant = !isVowel(stem[i], consonant); consonant {
			return i + 1
		}
	}
	return 0
}

func measureOver0(stem []byte) bool { return vowelConsonant(stem, false) > 0 }

func measureOver1(stem []byte) bool {
	n := vowelConsonant(stem, false)
	return n > 0 && vowelConsonant(stem[n:], true) > 0
}

func measureIs1(stem []byte) bool {
	n := vowelConsonant(stem, false)
	return n > 0 && vowelConsonant(stem[n:], true) == 0
}

// endsCVC tells whether stem ends consonant, vowel, consonant, the last not w, x or y.
func endsCVC(stem []byte) bool {
	last := stem[len(stem)-1]
	if last == 'w' || last == 'x' || last == 'y' {
		return false
	}
	mask, consonant := 0, false
	for _, c := range stem {
		consonant = !isVowel(c, consonant)
		mask <<= 1
		if consonant {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel tells whether stem holds a vowel, y counting as one after the first byte.
func hasVowel(stem []byte) bool {
	for i, c := range stem {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}
