// Package terms cuts text into the terms of the search table exactly as SQLite's FTS5
// tokenizer 'porter unicode61 remove_diacritics 2' does, byte for byte: the same token
// characters (FTS5's own Unicode category table, where unassigned code points are token
// characters), the same case folding and accent removal, SQLite's lenient UTF-8 decoding of
// invalid bytes, the same Porter stemmer and FTS5's cut of very long terms. So the build,
// which already reads every passage in Go, knows each term's frequency per passage without
// asking FTS5. It is pure: no SQL and no I/O (the tests compare it with FTS5).
package terms

// MaxTerm is the longest term FTS5 indexes, in bytes: a longer one is cut there, even inside
// a UTF-8 sequence (FTS5_MAX_TOKEN_SIZE).
const MaxTerm = 32768

// A Cutter cuts texts into terms, reusing its buffers; the zero value is ready. It is not
// safe for concurrent use.
type Cutter struct {
	folded []byte
	stem   [maxStemmed + 8]byte
}

// Each calls fn with every term of s in order, as the index holds it. The slice is valid
// only during the call.
func (c *Cutter) Each(s string, fn func(term []byte)) {
	c.cut(s, true, nil, func(t []byte, _ int) { fn(t) })
}

// EachFolded is Each without the stemmer: the terms of 'unicode61 remove_diacritics 2'.
func (c *Cutter) EachFolded(s string, fn func(term []byte)) {
	c.cut(s, false, nil, func(t []byte, _ int) { fn(t) })
}

// EachStarting is Each for the terms whose first byte first marks, and returns how many
// terms s holds in all. The stemmer never changes a term's first byte, so the terms left
// out are not stemmed at all: finding a few terms in a text costs little more than
// finding its tokens.
func (c *Cutter) EachStarting(s string, first *[256]bool, fn func(term []byte)) int {
	return c.cut(s, true, first, func(term []byte, _ int) { fn(term) })
}

// EachStartingAt is EachStarting that also gives each term's position among all the terms
// of s (from 0), as FTS5 numbers them for phrases.
func (c *Cutter) EachStartingAt(s string, first *[256]bool, fn func(term []byte, at int)) int {
	return c.cut(s, true, first, fn)
}

// cut calls fn with the terms of s (of those whose first byte first marks, when set) and
// returns the number of terms.
func (c *Cutter) cut(s string, stem bool, first *[256]bool, fn func(term []byte, at int)) int {
	i, count := 0, 0
	for {
		// Skip separators; a token starts with a token character (FTS5 never starts one with
		// an accent that only continues a token).
		start := -1
		for i < len(s) {
			b := s[i]
			if b < 0x80 {
				if asciiToken[b] {
					start = i
					break
				}
				i++
				continue
			}
			r, n := decode(s, i)
			if classOf(r) == classToken {
				start = i
				break
			}
			i += n
		}
		if start < 0 {
			return count
		}
		out := c.folded[:0]
		for i < len(s) {
			b := s[i]
			if b < 0x80 {
				if !asciiToken[b] {
					break
				}
				if 'A' <= b && b <= 'Z' {
					b += 'a' - 'A'
				}
				out = append(out, b)
				i++
				continue
			}
			r, n := decode(s, i)
			if classOf(r) == classSeparator {
				break
			}
			if f := foldRune(r); f != 0 {
				out = appendUTF8(out, f)
			}
			i += n
		}
		c.folded = out
		count++
		if first != nil && (len(out) == 0 || !first[out[0]]) {
			continue
		}
		term := out
		if stem {
			term = c.stemmed(out)
		}
		if len(term) > MaxTerm {
			term = term[:MaxTerm]
		}
		fn(term, count-1)
	}
}

// Terms returns the terms of s in order.
func Terms(s string) []string {
	var c Cutter
	var out []string
	c.Each(s, func(t []byte) { out = append(out, string(t)) })
	return out
}

// Folded returns the terms of s in order without the stemmer (EachFolded).
func Folded(s string) []string {
	var c Cutter
	var out []string
	c.EachFolded(s, func(t []byte) { out = append(out, string(t)) })
	return out
}

// asciiToken tells the ASCII token characters: letters and digits.
var asciiToken = func() (t [128]bool) {
	for b := range t {
		t[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
	}
	return t
}()

// decode reads the character at s[i] as SQLite does (READ_UTF8): a lead byte takes every
// continuation byte that follows, however many; a stray continuation byte is the code point
// of its own value; an overlong form, a surrogate, U+FFFE and U+FFFF read as U+FFFD.
func decode(s string, i int) (uint32, int) {
	c := uint32(s[i])
	j := i + 1
	if c >= 0xc0 {
		c = uint32(utf8Lead[c-0xc0])
		for j < len(s) && s[j]&0xc0 == 0x80 {
			c = c<<6 + uint32(s[j]&0x3f)
			j++
		}
		if c < 0x80 || c&0xFFFFF800 == 0xD800 || c&0xFFFFFFFE == 0xFFFE {
			c = 0xFFFD
		}
	}
	return c, j - i
}

// utf8Lead holds the payload bits of each lead byte from 0xC0 on.
var utf8Lead = [64]byte{
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
}

// appendUTF8 writes c as SQLite does (WRITE_UTF8): at most four bytes, the high bits of a
// value beyond U+1FFFFF dropped.
func appendUTF8(b []byte, c uint32) []byte {
	switch {
	case c < 0x80:
		return append(b, byte(c))
	case c < 0x800:
		return append(b, 0xC0+byte(c>>6&0x1F), 0x80+byte(c&0x3F))
	case c < 0x10000:
		return append(b, 0xE0+byte(c>>12&0x0F), 0x80+byte(c>>6&0x3F), 0x80+byte(c&0x3F))
	}
	return append(b, 0xF0+byte(c>>18&0x07), 0x80+byte(c>>12&0x3F), 0x80+byte(c>>6&0x3F), 0x80+byte(c&0x3F))
}

// Character classes of the code points beyond ASCII.
const (
	classSeparator = iota
	// classToken starts or continues a token.
	classToken
	// classAccent only continues a token (FTS5's diacritic modifiers).
	classAccent
)

// classOf returns the class of a decoded character. Code points from 1<<20 on fall outside
// FTS5's category table, which then answers category 0, a token category.
func classOf(c uint32) uint8 {
	if c >= 1<<20 {
		return classToken
	}
	lo, hi := 0, len(classStarts)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if uint32(classStarts[mid]) <= c {
			lo = mid
		} else {
			hi = mid
		}
	}
	return classRuns[lo]
}

// foldRune returns the folded form of a token character beyond ASCII (lower case, accents
// removed), 0 when the character is dropped (an accent on its own).
func foldRune(c uint32) uint32 {
	lo, hi := 0, len(foldFrom)
	for lo < hi {
		mid := (lo + hi) / 2
		if uint32(foldFrom[mid]) < c {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(foldFrom) && uint32(foldFrom[lo]) == c {
		return uint32(foldTo[lo])
	}
	return c
}
