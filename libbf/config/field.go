package config

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
)

// FieldType is the type of every value of a declared field.
type FieldType string

// Field types.
const (
	TypeString    FieldType = "string"
	TypeInteger   FieldType = "integer"
	typeNumber    FieldType = "number"
	TypeBoolean   FieldType = "boolean"
	TypeTimestamp FieldType = "timestamp"
	TypeIdentity  FieldType = "identity"
)

// Cardinality says how many values a field holds.
type Cardinality string

// Cardinalities. Optional is the default.
const (
	one      Cardinality = "one"
	optional Cardinality = "optional"
	Many     Cardinality = "many"
)

// Limits on field values.
const (
	maxValues      = 1000 // values of a many field
	maxValueChars  = 8192 // characters of a string, timestamp or identity value
	maxExamples    = 20
	maxTargets     = 64
	maxTargetChars = 1024
	maxPointer     = 4096 // characters of a JSON Pointer
)

// Field is a shared field or, with Relation, a relation: a field whose identity values are
// typed links from the note or record to their targets.
type Field struct {
	// Description says what the field means; 1–4096 characters.
	Description string `json:"description"`
	// Type is string, integer, number, boolean, timestamp or identity.
	Type FieldType `json:"type"`
	// Cardinality is one, optional (the default) or many.
	Cardinality Cardinality `json:"cardinality,omitempty"`
	// Relation makes the field a relation; it requires type identity.
	Relation bool `json:"relation,omitempty"`
	// Broader names another relation whose pages also list this one's links.
	Broader string `json:"broader,omitempty"`
	// Targets are identity prefixes; every value must start with one of them.
	Targets []string `json:"targets,omitempty"`
	// Examples are complete values, normalised; they are never used as defaults.
	Examples []any `json:"examples,omitempty"`
	// Default is the JSON Pointer into a sensor's output used when the sensor maps nothing
	// to this field.
	Default string `json:"default,omitempty"`
}

// Errors of Normalize. None quotes the value: field values may be personal data.
var (
	errMissing        = errors.New("expected a value")
	ErrOutsideTargets = errors.New("identity outside the declared targets")

	errList      = errors.New("expected a list")
	errTooMany   = errors.New("expected at most 1000 values")
	errSingle    = errors.New("expected a single value, not a list or mapping")
	errString    = errors.New("expected a string")
	errEmpty     = errors.New("expected a nonempty string")
	errLong      = errors.New("string is longer than 8192 characters")
	errControl   = errors.New("string contains a control character")
	errUTF8      = errors.New("string is not valid UTF-8")
	errInteger   = errors.New("expected an integer")
	errIntRange  = errors.New("integer does not fit in 64 bits")
	errNumber    = errors.New("expected a number")
	errFinite    = errors.New("expected a finite number")
	errBoolean   = errors.New("expected true or false")
	errTimestamp = errors.New("expected an ISO 8601 timestamp with a timezone")
	errFieldType = errors.New("field declares no valid type")
)

// ValueError locates a problem in one item of a many value.
type ValueError struct {
	Index int // 0-based position in the list
	Err   error
}

func (e *ValueError) Error() string { return e.Err.Error() }
func (e *ValueError) Unwrap() error { return e.Err }

// Required reports whether every mapped record must carry the field (cardinality one).
func (f *Field) Required() bool { return f.Cardinality == one }

// Normalize checks a complete value of the field and returns its stored form.
//
// A many field takes a list of at most 1000 scalars; exact duplicates are dropped in input
// order and an empty list stays an explicit "none". Other cardinalities take one scalar.
// Scalars are strict: integer wants an integer (not a boolean or a float), number an integer
// or a finite float, boolean true or false, and string, timestamp and identity a nonempty
// string without control characters of at most 8192 characters. A timestamp needs a
// timezone and becomes canonical UTC; an identity must match the identity grammar, is
// stored in canonical form and must start with one of the field's targets.
//
// Values may come from YAML (int64, *big.Int, float64, string, bool, []any) or from JSON
// (json.Number, float64, …). Decode JSON with UseNumber: a plain float64 never counts as an
// integer. The result holds string, int64, float64, bool or []any of those. nil gives
// errMissing; whether a missing value matters is the caller's decision (see Required).
func (f *Field) Normalize(v any) (any, error) {
	if v == nil {
		return nil, errMissing
	}
	if f.Cardinality != Many {
		return f.scalar(v)
	}
	list, ok := v.([]any)
	if !ok {
		if s, isStrings := v.([]string); isStrings {
			list = make([]any, len(s))
			for i := range s {
				list[i] = s[i]
			}
		} else {
			return nil, errList
		}
	}
	if len(list) > maxValues {
		return nil, errTooMany
	}
	out := make([]any, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i, item := range list {
		if item == nil {
			return nil, &ValueError{Index: i, Err: errMissing}
		}
		n, err := f.scalar(item)
		if err != nil {
			return nil, &ValueError{Index: i, Err: err}
		}
		k := dedupKey(n)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, n)
	}
	return out, nil
}

func (f *Field) scalar(v any) (any, error) {
	switch v.(type) {
	case []any, []string, map[string]any:
		return nil, errSingle
	}
	switch f.Type {
	case TypeString:
		s, ok := v.(string)
		if !ok {
			return nil, errString
		}
		return s, checkText(s)
	case TypeTimestamp:
		s, ok := v.(string)
		if !ok {
			return nil, errTimestamp
		}
		if err := checkText(s); err != nil {
			return nil, err
		}
		t, err := timestamp.Normalize(s)
		if err != nil {
			return nil, errTimestamp
		}
		return t, nil
	case TypeIdentity:
		s, ok := v.(string)
		if !ok {
			return nil, ref.ErrIdentity
		}
		id, err := ref.CanonicalIdentity(s)
		if err != nil {
			return nil, err
		}
		if !f.withinTargets(id) {
			return nil, ErrOutsideTargets
		}
		return id, nil
	case TypeInteger:
		return toInt(v)
	case typeNumber:
		return toNumber(v)
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, errBoolean
		}
		return b, nil
	}
	return nil, errFieldType
}

// withinTargets reports whether id starts with one of the field's targets (or the field
// declares none).
func (f *Field) withinTargets(id string) bool {
	if len(f.Targets) == 0 {
		return true
	}
	for _, t := range f.Targets {
		if len(id) >= len(t) && id[:len(t)] == t {
			return true
		}
	}
	return false
}

func checkText(s string) error {
	switch {
	case s == "":
		return errEmpty
	case !utf8.ValidString(s):
		return errUTF8
	case len(s) > maxValueChars && utf8.RuneCountInString(s) > maxValueChars:
		return errLong
	}
	for _, r := range s {
		if unicode.Is(unicode.Cc, r) {
			return errControl
		}
	}
	return nil
}

func toInt(v any) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case int16:
		return int64(n), nil
	case int8:
		return int64(n), nil
	case uint8:
		return int64(n), nil
	case uint16:
		return int64(n), nil
	case uint32:
		return int64(n), nil
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, errIntRange
		}
		return int64(n), nil
	case uint64:
		if n > math.MaxInt64 {
			return 0, errIntRange
		}
		return int64(n), nil
	case *big.Int:
		if n == nil {
			return 0, errInteger
		}
		if !n.IsInt64() {
			return 0, errIntRange
		}
		return n.Int64(), nil
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return i, nil
		}
		if isIntegerLiteral(string(n)) {
			return 0, errIntRange
		}
	}
	return 0, errInteger
}

func toNumber(v any) (any, error) {
	switch n := v.(type) {
	case float64:
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, errFinite
		}
		return n, nil
	case float32:
		return toNumber(float64(n))
	case *big.Int:
		if n == nil {
			return nil, errNumber
		}
		if n.IsInt64() {
			return n.Int64(), nil
		}
		f, _ := new(big.Float).SetInt(n).Float64()
		return toNumber(f)
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return i, nil
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			if isIntegerLiteral(string(n)) || isFloatRange(err) {
				return nil, errFinite
			}
			return nil, errNumber
		}
		return toNumber(f)
	case bool, string:
		return nil, errNumber
	}
	i, err := toInt(v)
	if err == errIntRange {
		return nil, errFinite
	}
	if err != nil {
		return nil, errNumber
	}
	return i, nil
}

func isFloatRange(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && ne.Err == strconv.ErrRange
}

func isIntegerLiteral(s string) bool {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// dedupKey makes equal values equal keys: 1 and 1.0 are the same number.
func dedupKey(v any) string {
	switch n := v.(type) {
	case string:
		return "s" + n
	case bool:
		return "b" + strconv.FormatBool(n)
	case int64:
		return "n" + strconv.FormatInt(n, 10)
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return "n" + strconv.FormatInt(int64(n), 10)
		}
		return "n" + strconv.FormatFloat(n, 'g', -1, 64)
	}
	return "?"
}
