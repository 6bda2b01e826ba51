package record

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/jsontext"
)

// Document-level reasons.
const (
	reasonInvalidJSON = "invalid JSON document"
	reasonDuplicate   = "JSON contains a duplicate key"
	reasonTooDeep     = "JSON nests deeper than 1,000 levels"
	reasonUnicode     = "must be valid Unicode, without invalid UTF-8 or lone surrogates"
	reasonNotObject   = "a record must be a JSON object"
	reasonFileSize    = "record file exceeds 16 MiB"
	reasonUnknownKey  = "unknown key; a record holds only id, title, text, time, url, links, aliases, attributes and fields"
)

// known lists the keys of a record object.
var known = map[string]bool{
	"id": true, "title": true, "text": true, "time": true, "url": true,
	"links": true, "aliases": true, "attributes": true, "fields": true,
}

// Parse reads one record: a single JSON object of at most MaxFileSize bytes, then Validate.
//
// Beyond plain JSON it refuses unknown keys, duplicate keys at any depth, strings with
// invalid UTF-8 or lone surrogate escapes, numbers too large for a float when written
// with a fraction or an exponent, nesting deeper than maxDepth, and anything after the
// object. Numbers are kept as json.Number, exactly as written. null stands for an
// absent optional field.
func Parse(data []byte) (Record, error) {
	if len(data) > MaxFileSize {
		return Record{}, &fieldError{Reason: reasonFileSize}
	}
	// Syntax first, so that a broken document reads as broken whatever else is in it.
	if !json.Valid(data) {
		return Record{}, &fieldError{Reason: reasonInvalidJSON}
	}
	p := parser{data: data}
	p.space()
	if p.i >= len(data) || data[p.i] != '{' {
		return Record{}, &fieldError{Reason: reasonNotObject}
	}
	v, err := p.object("", 1)
	if err != nil {
		return Record{}, err
	}
	if p.space(); p.i != len(data) {
		return Record{}, &fieldError{Reason: reasonInvalidJSON}
	}
	r, err := fromObject(v)
	if err != nil {
		return Record{}, err
	}
	if err := r.Validate(); err != nil {
		return Record{}, err
	}
	return r, nil
}

// UnmarshalJSON parses data with Parse, so a record inside a larger document is read as
// strictly as a record file.
func (r *Record) UnmarshalJSON(data []byte) error {
	v, err := Parse(data)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// fromObject moves the decoded top-level members into a Record, checking their JSON types.
func fromObject(m map[string]any) (Record, error) {
	var r Record
	var err error
	str := func(key string, required bool) string {
		v, ok := m[key]
		if err != nil || (!ok || v == nil) && !required {
			return ""
		}
		if !ok {
			err = &fieldError{key, "is required"}
			return ""
		}
		s, isStr := v.(string)
		if !isStr {
			err = &fieldError{key, reasonString}
		}
		return s
	}
	list := func(key string) []string {
		v := m[key]
		if err != nil || v == nil {
			return nil
		}
		items, ok := v.([]any)
		if !ok {
			err = &fieldError{key, "must be a list of strings"}
			return nil
		}
		out := make([]string, len(items))
		for i, item := range items {
			s, ok := item.(string)
			if !ok {
				err = &fieldError{key + "." + strconv.Itoa(i), reasonString}
				return nil
			}
			out[i] = s
		}
		return out
	}
	object := func(key string) map[string]any {
		v := m[key]
		if err != nil || v == nil {
			return nil
		}
		o, ok := v.(map[string]any)
		if !ok {
			err = &fieldError{key, "must be an object"}
		}
		return o
	}
	r.ID = str("id", true)
	r.Title = str("title", true)
	r.Text = str("text", false)
	r.Time = str("time", false)
	r.URL = str("url", false)
	r.Links = list("links")
	r.Aliases = list("aliases")
	r.Attributes = object("attributes")
	r.Fields = object("fields")
	return r, err
}

// parser decodes JSON that json.Valid has accepted, adding the checks encoding/json lacks.
// where is the field named by errors: a top-level key, or links.N / aliases.N inside those
// lists. Deeper paths into attributes and fields are not named, as their keys are data.
type parser struct {
	data []byte
	i    int
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) invalid() error { return &fieldError{Reason: reasonInvalidJSON} }

func (p *parser) value(where string, depth int) (any, error) {
	p.space()
	if p.i >= len(p.data) {
		return nil, p.invalid()
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(where, depth+1)
	case c == '[':
		return p.array(where, depth+1)
	case c == '"':
		return p.str(where)
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, p.invalid()
}

func (p *parser) literal(word string) error {
	if !strings.HasPrefix(string(p.data[p.i:min(p.i+len(word), len(p.data))]), word) {
		return p.invalid()
	}
	p.i += len(word)
	return nil
}

func (p *parser) object(where string, depth int) (map[string]any, error) {
	if depth > maxDepth {
		return nil, &fieldError{where, reasonTooDeep}
	}
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.invalid()
		}
		key, err := p.str(where)
		if err != nil {
			return nil, err
		}
		child := where
		if depth == 1 {
			if !known[key] {
				return nil, &fieldError{printableKey(key), reasonUnknownKey}
			}
			child = key
		}
		if _, dup := m[key]; dup {
			return nil, &fieldError{child, reasonDuplicate}
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.invalid()
		}
		p.i++
		v, err := p.value(child, depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
		if done, err := p.afterElement('}'); err != nil {
			return nil, err
		} else if done {
			return m, nil
		}
	}
}

func (p *parser) array(where string, depth int) ([]any, error) {
	if depth > maxDepth {
		return nil, &fieldError{where, reasonTooDeep}
	}
	p.i++ // [
	items := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return items, nil
	}
	named := depth == 2 && (where == "links" || where == "aliases")
	for {
		child := where
		if named {
			child = where + "." + strconv.Itoa(len(items))
		}
		v, err := p.value(child, depth)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if done, err := p.afterElement(']'); err != nil {
			return nil, err
		} else if done {
			return items, nil
		}
	}
}

// afterElement steps over what follows an object member or an array item: a comma when
// more follow, or close, the end of the object or array (done).
func (p *parser) afterElement(close byte) (done bool, err error) {
	p.space()
	if p.i >= len(p.data) {
		return false, p.invalid()
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		return false, nil
	case close:
		p.i++
		return true, nil
	}
	return false, p.invalid()
}

// str decodes the string starting at p.i, refusing invalid UTF-8 and lone surrogates,
// which encoding/json would silently turn into U+FFFD.
func (p *parser) str(where string) (string, error) {
	s, next, err := jsontext.ReadString(p.data, p.i)
	p.i = next
	if errors.Is(err, jsontext.ErrUnicode) {
		if where == "" {
			return "", &fieldError{where, "JSON strings " + reasonUnicode}
		}
		return "", &fieldError{where, reasonUnicode}
	}
	if err != nil {
		return "", p.invalid()
	}
	return s, nil
}

func (p *parser) number() (any, error) {
	start := p.i
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' && (c < '0' || c > '9') {
			break
		}
		p.i++
	}
	n := string(p.data[start:p.i])
	if !validNumber(n) || !finite(n) {
		return nil, p.invalid()
	}
	return json.Number(n), nil
}

// validNumber reports whether s is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// finite reports whether a number with a fraction or an exponent fits a float64, as such
// numbers are floats to most JSON readers; integers of any size are kept.
func finite(n string) bool {
	if !strings.ContainsAny(n, ".eE") {
		return true
	}
	f, _ := strconv.ParseFloat(n, 64)
	return !math.IsInf(f, 0)
}

// printableKey names an unknown key in an error when it looks like a field name, and
// nothing otherwise: keys are data, and a long or odd one has no place in a diagnostic.
func printableKey(k string) string {
	if len(k) == 0 || len(k) > 64 {
		return ""
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return ""
		}
	}
	return k
}
