package collect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/record"
)

// output is a sensor's parsed and checked output.
type output struct {
	// Records are valid, with unique ids and their fields mapped.
	Records []record.Record
	// Incomplete is set when the sensor reported items it missed.
	Incomplete *Incomplete
}

// Incomplete says how many items a sensor knowingly left out of a run.
type Incomplete struct {
	Missed int `json:"missed"`
}

// outputError is sensor output that cannot be stored. Index is the record's position in
// the printed list (-1 when the error concerns the whole document) and ID its id when it
// could be read; Reason never holds a value from the output other than that id.
type outputError struct {
	Index  int
	ID     string
	Reason string
}

func (e *outputError) Error() string {
	if e.Index < 0 {
		return e.Reason
	}
	if e.ID == "" {
		return fmt.Sprintf("record at index %d: %s", e.Index, e.Reason)
	}
	return fmt.Sprintf("record at index %d (id %s): %s", e.Index, strconv.Quote(e.ID), e.Reason)
}

// maxQuotedID bounds the id an error shows, in characters; a longer one is cut.
const maxQuotedID = 120

// parseOutput reads what sensor name printed: one JSON document, either an array of record
// objects or an object {"records": [...], "incomplete": {"missed": N}} ("incomplete" is
// optional). Every record is read with the rules of a record file (unknown or duplicate
// keys, invalid Unicode and trailing data are refused) and validated; then the sensor's
// field mappings and the declared fields' default pointers fill its fields; ids must be
// unique. The first problem fails the whole output, as a *outputError.
//
// Mappings: a {value: …} mapping sets the value as declared; a {path: …} JSON Pointer
// reads the value from the record object as printed. A pointer that finds nothing (or
// null) leaves the field unset, which fails a field of cardinality one; a field with a
// default pointer and no mapping of its own takes that pointer's value when there is one.
// Values the sensor printed under "fields" itself must be declared. Every value is checked
// and normalised against its declaration (type, cardinality, identity targets); a mapped
// value replaces a printed one.
func parseOutput(cfg *config.Config, name string, data []byte) (*output, error) {
	s := cfg.Sensors[name]
	if s == nil {
		return nil, fmt.Errorf("sensor %s is not declared in bf.yaml", name)
	}
	items, inc, err := split(data)
	if err != nil {
		return nil, err
	}
	out := &output{Records: make([]record.Record, 0, len(items)), Incomplete: inc}
	seen := make(map[string]int, len(items))
	for i, raw := range items {
		r, err := record.Parse(raw)
		if err != nil {
			return nil, &outputError{Index: i, ID: probeID(raw), Reason: err.Error()}
		}
		if err := mapFields(cfg, s, &r, raw); err != nil {
			return nil, &outputError{Index: i, ID: r.ID, Reason: err.Error()}
		}
		if err := r.Validate(); err != nil {
			return nil, &outputError{Index: i, ID: r.ID, Reason: err.Error()}
		}
		if j, dup := seen[r.ID]; dup {
			return nil, &outputError{Index: i, ID: r.ID, Reason: fmt.Sprintf("repeats the id of the record at index %d; ids must be unique", j)}
		}
		seen[r.ID] = i
		out.Records = append(out.Records, r)
	}
	return out, nil
}

// split separates the printed records and the incomplete report.
func split(data []byte) ([]json.RawMessage, *Incomplete, error) {
	whole := func(reason string) error { return &outputError{Index: -1, Reason: reason} }
	// NaN, Infinity, comments and trailing data all fail here.
	if !json.Valid(data) {
		return nil, nil, whole("output is not one valid JSON document; expected a JSON array of records")
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, nil, whole("output is not one valid JSON document; expected a JSON array of records")
		}
		return items, nil, nil
	case len(trimmed) > 0 && trimmed[0] == '{':
		return envelope(trimmed)
	}
	return nil, nil, whole(`expected a JSON array of records, or {"records": [...], "incomplete": {"missed": N}}`)
}

// envelope reads {"records": [...], "incomplete": {"missed": N}} strictly: no other or
// repeated keys. N = 0 reports no missed item, so the run is complete.
func envelope(data []byte) ([]json.RawMessage, *Incomplete, error) {
	whole := func(reason string) error { return &outputError{Index: -1, Reason: reason} }
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, nil, whole("output is not one valid JSON document")
	}
	var items []json.RawMessage
	var inc *Incomplete
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, whole("output is not one valid JSON document")
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, nil, whole("output object repeats a key")
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, whole("output is not one valid JSON document")
		}
		switch key {
		case "records":
			if err := json.Unmarshal(raw, &items); err != nil || items == nil {
				return nil, nil, whole("records: expected a JSON array of records")
			}
		case "incomplete":
			if inc, err = incomplete(raw); err != nil {
				return nil, nil, whole(err.Error())
			}
		default:
			return nil, nil, whole(`output object holds an unknown key; expected only "records" and "incomplete"`)
		}
	}
	if !seen["records"] {
		return nil, nil, whole(`output object has no "records" array`)
	}
	// Missing nothing is no incomplete run: a sensor that always prints the object form
	// says so with {"missed": 0}.
	if inc != nil && inc.Missed == 0 {
		inc = nil
	}
	return items, inc, nil
}

// incomplete reads {"missed": N} with N a non-negative integer.
func incomplete(raw json.RawMessage) (*Incomplete, error) {
	bad := errors.New(`incomplete: expected {"missed": N} with N a whole number of missed items`)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, bad
	}
	var inc *Incomplete
	for dec.More() {
		tok, err := dec.Token()
		if err != nil || tok != "missed" || inc != nil {
			return nil, bad
		}
		var n json.Number
		if err := dec.Decode(&n); err != nil {
			return nil, bad
		}
		v, err := strconv.ParseInt(string(n), 10, 32)
		if err != nil || v < 0 {
			return nil, bad
		}
		inc = &Incomplete{Missed: int(v)}
	}
	if inc == nil {
		return nil, bad
	}
	return inc, nil
}

// probeID reads the id of a record that failed to parse, when it is a string an error can
// show: no control or format characters; a long one is cut.
func probeID(raw json.RawMessage) string {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return ""
	}
	var id string
	if json.Unmarshal(probe.ID, &id) != nil || strings.TrimSpace(id) == "" {
		return ""
	}
	if strings.ContainsFunc(id, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) {
		return ""
	}
	if rs := []rune(id); len(rs) > maxQuotedID {
		return string(rs[:maxQuotedID-1]) + "…"
	}
	return id
}

// mapFields fills r.Fields from the sensor's mappings and the declared default pointers,
// checking every value against its declaration.
func mapFields(cfg *config.Config, s *config.Sensor, r *record.Record, raw json.RawMessage) error {
	var doc any
	needDoc := false
	for name, f := range cfg.Fields {
		if m := s.Fields[name]; m != nil && !m.IsLiteral() || s.Fields[name] == nil && f.Default != "" {
			needDoc = true
			break
		}
	}
	if needDoc {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil && err != io.EOF {
			return errors.New("cannot read the record for its field mappings")
		}
	}
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(r.Fields)) {
		f := cfg.Fields[name]
		if f == nil {
			return fmt.Errorf("fields.%s: not declared in bf.yaml fields; remove it or declare the field", name)
		}
		v, err := f.Normalize(r.Fields[name])
		if err != nil {
			return fieldError(name, err)
		}
		out[name] = v
	}
	for _, name := range slices.Sorted(maps.Keys(cfg.Fields)) {
		f := cfg.Fields[name]
		m := s.Fields[name]
		var v any
		switch {
		case m != nil && m.IsLiteral():
			v = m.Value
		case m != nil:
			v = Pointer(doc, m.Path)
			if v == nil {
				if f.Required() {
					return fmt.Errorf("fields.%s: its path found no value and the field requires one (cardinality one)", name)
				}
				delete(out, name)
				continue
			}
		case f.Default != "":
			if _, printed := out[name]; printed {
				continue
			}
			if v = Pointer(doc, f.Default); v == nil {
				continue
			}
		default:
			continue
		}
		n, err := f.Normalize(v)
		if err != nil {
			return fieldError(name, err)
		}
		out[name] = n
	}
	if len(out) == 0 {
		out = nil
	}
	r.Fields = out
	return nil
}

func fieldError(name string, err error) error {
	var ve *config.ValueError
	if errors.As(err, &ve) {
		return fmt.Errorf("fields.%s.%d: %w", name, ve.Index, ve.Err)
	}
	return fmt.Errorf("fields.%s: %w", name, err)
}

// Pointer resolves an RFC 6901 JSON Pointer in doc; nil when it names nothing or null.
func Pointer(doc any, p string) any {
	if p == "" {
		return doc
	}
	if !strings.HasPrefix(p, "/") {
		return nil
	}
	cur := doc
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[tok]
			if !ok {
				return nil
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || strconv.Itoa(i) != tok {
				return nil
			}
			cur = v[i]
		default:
			return nil
		}
	}
	return cur
}
