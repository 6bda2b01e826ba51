// Package jsontext reads and writes JSON strings exactly: record files and channel
// messages are parsed by strict decoders of their own, and both need the same string rules
// (invalid UTF-8 and lone surrogates refused rather than turned into U+FFFD) and the same
// canonical quoting when bf writes them back.
package jsontext

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

var (
	// errSyntax reports a string that is not JSON: unterminated, a raw control
	// character, or a malformed escape.
	errSyntax = errors.New("invalid JSON string")
	// ErrUnicode reports invalid UTF-8 or an unpaired surrogate escape.
	ErrUnicode = errors.New("invalid Unicode in a JSON string")
)

// ReadString decodes the JSON string whose opening quote is data[i]. It returns the string
// and the index just after its closing quote.
func ReadString(data []byte, i int) (string, int, error) {
	if i >= len(data) || data[i] != '"' {
		return "", i, errSyntax
	}
	i++
	start := i
	var buf []byte
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			seg := data[start:i]
			if !utf8.Valid(seg) {
				return "", i, ErrUnicode
			}
			if buf == nil {
				return string(seg), i + 1, nil
			}
			return string(append(buf, seg...)), i + 1, nil
		case c == '\\':
			seg := data[start:i]
			if !utf8.Valid(seg) {
				return "", i, ErrUnicode
			}
			buf = append(buf, seg...)
			r, next, ok := escape(data, i)
			if !ok {
				return "", i, errSyntax
			}
			i = next
			if utf16.IsSurrogate(r) {
				// Only a high surrogate directly followed by an escaped low one is a character.
				lo := rune(-1)
				if r < 0xdc00 && i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
					if l, next, ok := escape(data, i); ok {
						lo, i = l, next
					}
				}
				if lo < 0xdc00 || lo > 0xdfff {
					return "", i, ErrUnicode
				}
				r = utf16.DecodeRune(r, lo)
			}
			buf = utf8.AppendRune(buf, r)
			start = i
		case c < 0x20:
			return "", i, errSyntax
		default:
			i++
		}
	}
	return "", i, errSyntax
}

// escape decodes the escape sequence at data[i] (a backslash); it returns the rune and the
// index after the sequence.
func escape(data []byte, i int) (rune, int, bool) {
	if i+1 >= len(data) {
		return 0, i, false
	}
	c := data[i+1]
	i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), i, true
	case 'b':
		return '\b', i, true
	case 'f':
		return '\f', i, true
	case 'n':
		return '\n', i, true
	case 'r':
		return '\r', i, true
	case 't':
		return '\t', i, true
	case 'u':
		if i+4 > len(data) {
			return 0, i, false
		}
		v, err := strconv.ParseUint(string(data[i:i+4]), 16, 16)
		if err != nil {
			return 0, i, false
		}
		return rune(v), i + 4, true
	}
	return 0, i, false
}

// AppendString quotes s in canonical form: '"' and '\\' escaped, \b \f \n \r \t in short
// form, other C0 controls as lowercase \u00xx, everything else (DEL, U+2028, <, >, &,
// non-ASCII) literal. Files written by other tools that use these escapes stay
// byte-identical, and adapters read the text bf writes as it is. s must be valid UTF-8.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Array encodes strings as one JSON array: the parameter SQLite's json_each takes for a
// list of values ("[]" when there are none).
func Array(values []string) string {
	if len(values) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(values)
	return string(b)
}

// Int64s encodes ids as one JSON array, the json_each parameter of a list of ids.
func Int64s(ids []int64) string {
	b := make([]byte, 0, 8*len(ids)+2)
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(append(b, ']'))
}
