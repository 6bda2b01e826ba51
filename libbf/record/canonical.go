package record

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/jsontext"
)

// Canonical returns the bytes bf writes for r: compact JSON with keys sorted at every
// level, non-ASCII kept literal, no HTML escaping, empty values left out, numbers as
// written, and one trailing newline. It validates a copy of r first (r itself is not
// changed) and fails rather than print a record Parse would refuse.
func (r Record) Canonical() ([]byte, error) {
	c := r
	c.Attributes = maps.Clone(r.Attributes) // Validate may normalise reserved times
	if err := c.Validate(); err != nil {
		return nil, err
	}
	b := append(c.appendJSON(nil), '\n')
	if len(b) > MaxFileSize {
		return nil, &fieldError{Reason: reasonEncodedTooLong}
	}
	return b, nil
}

// MarshalJSON prints r in its canonical form, without the trailing newline.
func (r Record) MarshalJSON() ([]byte, error) {
	b, err := r.Canonical()
	if err != nil {
		return nil, err
	}
	return b[:len(b)-1], nil
}

// appendJSON writes the members in sorted key order, leaving out empty ones.
func (r *Record) appendJSON(b []byte) []byte {
	b = append(b, '{')
	sep := func() {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	strList := func(key string, l []string) {
		if len(l) > 0 {
			sep()
			b = append(jsontext.AppendString(b, key), ':')
			b = appendStrings(b, l)
		}
	}
	object := func(key string, m map[string]any) {
		if len(m) > 0 {
			sep()
			b = append(jsontext.AppendString(b, key), ':')
			b = appendObject(b, m)
		}
	}
	str := func(key, v string, always bool) {
		if v != "" || always {
			sep()
			b = append(jsontext.AppendString(b, key), ':')
			b = jsontext.AppendString(b, v)
		}
	}
	strList("aliases", r.Aliases)
	object("attributes", r.Attributes)
	object("fields", r.Fields)
	str("id", r.ID, true)
	strList("links", r.Links)
	str("text", r.Text, false)
	str("time", r.Time, false)
	str("title", r.Title, true)
	str("url", r.URL, false)
	return append(b, '}')
}

func appendStrings(b []byte, l []string) []byte {
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, s)
	}
	return append(b, ']')
}

func appendObject(b []byte, m map[string]any) []byte {
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsontext.AppendString(b, k), ':')
		b = appendValue(b, m[k])
	}
	return append(b, '}')
}

// appendValue writes a value that checkValue accepted.
func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case string:
		return jsontext.AppendString(b, v)
	case json.Number:
		return append(b, v...)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return appendFloat(b, v)
	case []string:
		return appendStrings(b, v)
	case []any:
		b = append(b, '[')
		for i, item := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, item)
		}
		return append(b, ']')
	case map[string]any:
		return appendObject(b, v)
	}
	panic("record: appendValue of an unchecked value")
}

// appendFloat prints a float64 in its shortest round-trip form with a trailing .0 for whole
// numbers, in scientific notation with an exponent of at least two digits outside [1e-4, 1e16)
// (1.0, 1e+16, 1e-05), so record files written by other tools that use that convention stay
// byte-identical.
func appendFloat(b []byte, f float64) []byte {
	if f == 0 {
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // [-]d[.ddd]e±dd
	if s[0] == '-' {
		b = append(b, '-')
		s = s[1:]
	}
	mant, e, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(e)
	digits := strings.Replace(mant, ".", "", 1)
	switch {
	case exp >= 16 || exp < -4:
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(append(b, '.'), digits[1:]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	case exp < 0:
		b = append(b, "0."...)
		b = append(b, strings.Repeat("0", -exp-1)...)
		return append(b, digits...)
	case len(digits) <= exp+1:
		b = append(b, digits...)
		b = append(b, strings.Repeat("0", exp+1-len(digits))...)
		return append(b, ".0"...)
	default:
		return append(append(append(b, digits[:exp+1]...), '.'), digits[exp+1:]...)
	}
}
