// Package text holds what the example sensors and channel share: one-line titles, clipping
// by characters, decoding bytes that may not be UTF-8, system error reasons, and printing
// the one JSON document a program answers with.
package text

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// IsSpace reports white space as a line splitter sees it: Unicode white space and the
// ASCII file, group, record and unit separators.
func IsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// Trim removes white space from both ends.
func Trim(s string) string { return strings.TrimFunc(s, IsSpace) }

// CleanLine makes s one line for a title or attribute: control characters become spaces
// (bf refuses them in titles) and runs of white space collapse to one space.
func CleanLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.FieldsFunc(s, IsSpace), " ")
}

// Clip cuts s to at most n characters, ending a cut text with "…".
func Clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Cut returns the first n characters of s and whether anything was cut.
func Cut(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	return string([]rune(s)[:n]), true
}

// Decode turns bytes that should be UTF-8 into valid text: each invalid sequence (its
// longest start that could still have become a character) becomes one U+FFFD.
func Decode(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var out strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r != utf8.RuneError || n > 1 {
			out.Write(b[:n])
			b = b[n:]
			continue
		}
		out.WriteRune(utf8.RuneError)
		b = b[invalidLength(b):]
	}
	return out.String()
}

// invalidLength is the length of the maximal subpart of an ill-formed sequence at the
// start of b: a lead byte and the continuation bytes that could still follow it.
func invalidLength(b []byte) int {
	lead := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case lead >= 0xC2 && lead <= 0xDF:
		need = 1
	case lead == 0xE0:
		need, lo = 2, 0xA0
	case lead == 0xED:
		need, hi = 2, 0x9F
	case lead >= 0xE1 && lead <= 0xEF:
		need = 2
	case lead == 0xF0:
		need, lo = 3, 0x90
	case lead == 0xF4:
		need, hi = 3, 0x8F
	case lead >= 0xF1 && lead <= 0xF3:
		need = 3
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(b); n++ {
		c := b[n]
		if n > 1 {
			lo, hi = 0x80, 0xBF
		}
		if c < lo || c > hi {
			break
		}
	}
	return n
}

// Reason is the system's short reason for err, capitalised as C libraries print it
// ("Permission denied"), or err's text when it carries no system error.
func Reason(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}

// WriteJSON prints v as one compact line of UTF-8 JSON, without HTML escapes.
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Marshal is WriteJSON into a byte slice, without the line end.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteJSON(&b, v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
