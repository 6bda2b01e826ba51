package channel

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/bfgo/bf/libbf/jsontext"
)

// Reasons for documents that are not the strict JSON adapters must print.
const (
	reasonSyntax    = "invalid JSON"
	reasonDuplicate = "duplicate key"
	reasonUnicode   = "must be valid Unicode, without invalid UTF-8 or lone surrogates"
	reasonTrailing  = "unexpected text after the JSON document"
)

// decoder walks one JSON document that json.Valid has accepted, without building a tree:
// callers say what each key holds, so a batch stops as soon as it is known to be too
// large, and checks that encoding/json skips happen on the way: duplicate keys, invalid
// UTF-8 and lone surrogate escapes (which encoding/json silently turns into U+FFFD).
type decoder struct {
	data []byte
	i    int
}

// newDecoder refuses a document that is not JSON before anything else is looked at, so a
// truncated or garbled output reads as such whatever else it holds.
func newDecoder(data []byte) (*decoder, error) {
	if !json.Valid(data) {
		return nil, &fieldError{Reason: "invalid JSON document"}
	}
	return &decoder{data: data}, nil
}

func (d *decoder) space() {
	for d.i < len(d.data) {
		switch d.data[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// peek returns the first byte of the next value, or 0 at the end of the document.
func (d *decoder) peek() byte {
	d.space()
	if d.i >= len(d.data) {
		return 0
	}
	return d.data[d.i]
}

// end checks that only white space follows the document.
func (d *decoder) end() error {
	if d.peek() != 0 {
		return &fieldError{Reason: reasonTrailing}
	}
	return nil
}

func (d *decoder) expect(c byte, field string) error {
	if d.peek() != c {
		return &fieldError{Field: field, Reason: reasonSyntax}
	}
	d.i++
	return nil
}

// object reads an object and calls member for each key, with the decoder placed at the
// key's value; member must consume that value. A key seen twice fails before member runs.
// field names the object in errors.
func (d *decoder) object(field string, member func(key string) error) error {
	if err := d.expect('{', field); err != nil {
		return err
	}
	if d.peek() == '}' {
		d.i++
		return nil
	}
	seen := map[string]bool{}
	for {
		if d.peek() != '"' {
			return &fieldError{Field: field, Reason: reasonSyntax}
		}
		key, err := d.str(field)
		if err != nil {
			return err
		}
		if seen[key] {
			return &fieldError{Field: join(field, FieldName(key)), Reason: reasonDuplicate}
		}
		seen[key] = true
		if err := d.expect(':', field); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			return nil
		default:
			return &fieldError{Field: field, Reason: reasonSyntax}
		}
	}
}

// array reads an array and calls item for each element, with the decoder placed at it;
// item must consume the element.
func (d *decoder) array(field string, item func(n int) error) error {
	if err := d.expect('[', field); err != nil {
		return err
	}
	if d.peek() == ']' {
		d.i++
		return nil
	}
	for n := 0; ; n++ {
		if err := item(n); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			return nil
		default:
			return &fieldError{Field: field, Reason: reasonSyntax}
		}
	}
}

// skip consumes any value, checking the Unicode of its strings. Nesting is bounded by
// json.Valid's own limit on the document.
func (d *decoder) skip(field string) error {
	switch c := d.peek(); c {
	case '{':
		return d.object(field, func(string) error { return d.skip(field) })
	case '[':
		return d.array(field, func(int) error { return d.skip(field) })
	case '"':
		_, err := d.str(field)
		return err
	case 't', 'f', 'n':
		_, _, err := d.literal(field)
		return err
	}
	for d.i < len(d.data) {
		switch c := d.data[d.i]; {
		case c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c >= '0' && c <= '9':
			d.i++
		default:
			return nil
		}
	}
	return nil
}

// literal reads true, false or null; null reports ok false.
func (d *decoder) literal(field string) (value, ok bool, err error) {
	rest := d.data[d.i:]
	for _, w := range []struct {
		text      string
		value, ok bool
	}{{"true", true, true}, {"false", false, true}, {"null", false, false}} {
		if len(rest) >= len(w.text) && string(rest[:len(w.text)]) == w.text {
			d.i += len(w.text)
			return w.value, w.ok, nil
		}
	}
	return false, false, &fieldError{Field: field, Reason: reasonSyntax}
}

// str reads the string at the decoder.
func (d *decoder) str(field string) (string, error) {
	if d.peek() != '"' {
		return "", &fieldError{Field: field, Reason: reasonSyntax}
	}
	s, next, err := jsontext.ReadString(d.data, d.i)
	d.i = next
	if errors.Is(err, jsontext.ErrUnicode) {
		return "", &fieldError{Field: field, Reason: reasonUnicode}
	}
	if err != nil {
		return "", &fieldError{Field: field, Reason: reasonSyntax}
	}
	return s, nil
}

// object is a compact JSON object built member by member, in the order given.
type object struct{ b []byte }

func (o *object) str(key, value string) {
	o.sep()
	o.b = jsontext.AppendString(o.b, key)
	o.b = append(o.b, ':')
	o.b = jsontext.AppendString(o.b, value)
}

func (o *object) boolean(key string, value bool) {
	o.sep()
	o.b = jsontext.AppendString(o.b, key)
	o.b = append(o.b, ':')
	o.b = strconv.AppendBool(o.b, value)
}

func (o *object) sep() {
	if len(o.b) == 0 {
		o.b = append(o.b, '{')
	} else {
		o.b = append(o.b, ',')
	}
}

func (o *object) bytes() []byte {
	if len(o.b) == 0 {
		return []byte("{}")
	}
	return append(o.b, '}')
}
