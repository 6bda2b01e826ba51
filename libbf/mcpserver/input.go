package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/reply"
)

// param is one argument of a tool. The same description publishes the input schema and
// checks calls, so bf refuses every argument the schema excludes, in its own words.
type param struct {
	name        string
	integer     bool     // an integer; otherwise a string unless boolean
	boolean     bool     // true or false
	minLength   int      // a string's least length, in characters (0: any)
	maxLength   int      // a string's limit, in characters (0: none)
	enum        []string // the only strings allowed, when set
	enumTyped   bool     // the enum's schema also says "type":"string", as the memory tools' always did
	min, max    int64    // an integer's range
	def         any      // the published default; nil for none
	required    bool
	description string
}

// input is a tool's arguments, in the order the schema lists them.
type input []param

var searchInput = input{
	{name: "query", maxLength: 4096, required: true, description: `A few subject words ("quoted phrases" and prefix* words allowed) or one exact identity such as repo:github.com/owner/name.`},
	{name: "scope", maxLength: 8192, def: "", description: "Search only within one scope: a folder or note (projects, projects/new-website.md), a source with an optional period, undated records or a record file (memories/mail, memories/mail/7d), a period (today, 7d, 2026-09, 2026-09-21..2026-09-25), an identity or a tag address bf://NAME/tags/LABEL."},
	{name: "limit", integer: true, min: 1, max: 50, def: 10, description: "At most this many results per page."},
	{name: "offset", integer: true, min: 0, max: reply.MaxOffset, def: 0, description: "Continue at a previous reply's next_offset."},
	searchModeParam,
}

var readInput = input{
	{name: "ref", maxLength: 8192, def: "", description: "Empty for the home page; a page (projects, concepts, actions, tasks, tags, tags/LABEL, memories, memories/SOURCE, today, 7d, 2026-09, 2026-09-21..2026-09-25), a note path, path#section, SOURCE:ID, an identity, or bf://NAME/... to read in one selected brain."},
	{name: "rel", maxLength: 64, def: "", description: "List every item linking to ref through this relation: one a brain declares (with its narrower relations), cites or links."},
	{name: "offset", integer: true, min: 0, max: reply.MaxOffset, def: 0, description: "Continue a listing, relation page or text at a previous reply's next_offset."},
}

// schema is the JSON Schema of the arguments.
func (in input) schema() string {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i, p := range in {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s:{", quoteJSON(p.name))
		switch {
		case p.integer:
			fmt.Fprintf(&b, `"type":"integer","minimum":%d,"maximum":%d`, p.min, p.max)
		case p.boolean:
			b.WriteString(`"type":"boolean"`)
		case len(p.enum) > 0:
			if p.enumTyped {
				b.WriteString(`"type":"string",`)
			}
			e, _ := json.Marshal(p.enum)
			fmt.Fprintf(&b, `"enum":%s`, e)
		default:
			b.WriteString(`"type":"string"`)
			if p.minLength > 0 {
				fmt.Fprintf(&b, `,"minLength":%d`, p.minLength)
			}
			if p.maxLength > 0 {
				fmt.Fprintf(&b, `,"maxLength":%d`, p.maxLength)
			}
		}
		if p.def != nil {
			d, _ := json.Marshal(p.def)
			fmt.Fprintf(&b, `,"default":%s`, d)
		}
		if p.description != "" {
			fmt.Fprintf(&b, `,"description":%s`, quoteJSON(p.description))
		}
		b.WriteString("}")
		if p.required {
			required = append(required, p.name)
		}
	}
	b.WriteString("}")
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		fmt.Fprintf(&b, `,"required":%s`, r)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.String()
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// values are checked arguments: a string, an int64 or a bool per name, as sent (defaults
// are the caller's).
type values map[string]any

func (v values) str(name string) string    { s, _ := v[name].(string); return s }
func (v values) integer(name string) int64 { n, _ := v[name].(int64); return n }
func (v values) boolean(name string) bool  { t, _ := v[name].(bool); return t }
func (v values) has(name string) bool      { _, ok := v[name]; return ok }
func (in input) find(name string) (param, bool) {
	i := slices.IndexFunc(in, func(p param) bool { return p.name == name })
	if i < 0 {
		return param{}, false
	}
	return in[i], true
}

// check reads a call's raw arguments (absent or null means none) against the schema. The
// first refusal is invalid input worded by bf: an unknown argument, a missing one, a wrong
// type, a string too long or an integer out of range, with the value as sent.
func (in input) check(raw json.RawMessage) (values, error) {
	raw = bytes.TrimSpace(raw)
	fields := map[string]json.RawMessage{}
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		if raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
			return nil, &reply.InputError{Argument: "arguments", Err: errors.New("must be an object")}
		}
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := in.find(name); !ok {
			return nil, fmt.Errorf("invalid input: unknown argument %s", name)
		}
	}
	out := values{}
	for _, p := range in {
		v, ok := fields[p.name]
		if !ok {
			if p.required {
				return nil, &reply.InputError{Argument: p.name, Err: errors.New("required")}
			}
			continue
		}
		if p.integer {
			n, err := p.checkInteger(bytes.TrimSpace(v))
			if err != nil {
				return nil, &reply.InputError{Argument: p.name, Err: err}
			}
			out[p.name] = n
			continue
		}
		if p.boolean {
			var t bool
			if err := json.Unmarshal(v, &t); err != nil {
				return nil, &reply.InputError{Argument: p.name, Err: fmt.Errorf("must be true or false (got %s)", shorten(v))}
			}
			out[p.name] = t
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, &reply.InputError{Argument: p.name, Err: fmt.Errorf("must be a string (got %s)", shorten(v))}
		}
		if len(p.enum) > 0 {
			if !slices.Contains(p.enum, s) {
				return nil, &reply.InputError{Argument: p.name, Err: fmt.Errorf("must be one of %s (got %s)", strings.Join(p.enum, ", "), shorten(v))}
			}
		} else if n := utf8.RuneCountInString(s); p.maxLength > 0 && n > p.maxLength {
			return nil, &reply.InputError{Argument: p.name, Err: fmt.Errorf("must be at most %d characters (got %d)", p.maxLength, n)}
		} else if n < p.minLength {
			return nil, &reply.InputError{Argument: p.name, Err: fmt.Errorf("must be at least %d characters (got %d)", p.minLength, n)}
		}
		out[p.name] = s
	}
	return out, nil
}

// checkInteger reads a JSON number that is an integer in range; 5.0 counts as 5, and a
// number beyond any Go type (1e400) is out of range like any other.
func (p param) checkInteger(v json.RawMessage) (int64, error) {
	if len(v) == 0 || !(v[0] == '-' || v[0] >= '0' && v[0] <= '9') || !json.Valid(v) {
		return 0, fmt.Errorf("must be an integer (got %s)", shorten(v))
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		if n < p.min || n > p.max {
			return 0, p.rangeError(v)
		}
		return n, nil
	}
	f, _, err := big.ParseFloat(string(v), 10, 64, big.ToNearestEven)
	switch {
	case err != nil && bytes.ContainsAny(v, "eE") && !bytes.Contains(bytes.ToLower(v), []byte("e-")):
		// An exponent too large for any float: an integer, far out of range.
		return 0, p.rangeError(v)
	case err != nil || !f.IsInt():
		return 0, fmt.Errorf("must be an integer (got %s)", shorten(v))
	case f.Cmp(new(big.Float).SetInt64(p.min)) < 0 || f.Cmp(new(big.Float).SetInt64(p.max)) > 0:
		return 0, p.rangeError(v)
	}
	n, _ := f.Int64()
	return n, nil
}

func (p param) rangeError(v json.RawMessage) error {
	return fmt.Errorf("must be %d to %d (got %s)", p.min, p.max, shorten(v))
}

// shorten shows a sent value in a message, at most 40 bytes of it.
func shorten(v json.RawMessage) string {
	const max = 40
	if len(v) <= max {
		return string(v)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return string(v[:cut]) + "…"
}
