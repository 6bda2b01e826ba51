package config

import (
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	str := &Field{Type: TypeString, Cardinality: optional}
	strs := &Field{Type: TypeString, Cardinality: Many}
	one := &Field{Type: TypeString, Cardinality: one}
	integer := &Field{Type: TypeInteger}
	number := &Field{Type: typeNumber}
	numbers := &Field{Type: typeNumber, Cardinality: Many}
	boolean := &Field{Type: TypeBoolean}
	ts := &Field{Type: TypeTimestamp}
	id := &Field{Type: TypeIdentity}
	people := &Field{Type: TypeIdentity, Cardinality: Many, Relation: true, Targets: []string{"person:email/", "bf://acme/people/"}}
	huge, _ := new(big.Int).SetString("99999999999999999999", 10)
	fits := big.NewInt(7)
	hundreds := make([]any, 1001)
	for i := range hundreds {
		hundreds[i] = "x"
	}

	tests := []struct {
		name    string
		f       *Field
		in      any
		want    any
		wantErr string
	}{
		{"string", str, "hello", "hello", ""},
		{"string unicode", str, "héllo wörld", "héllo wörld", ""},
		{"string one", one, "x", "x", ""},
		{"string empty", str, "", nil, "expected a nonempty string"},
		{"string control", str, "a\tb", nil, "string contains a control character"},
		{"string C1 control", str, "a\u0085b", nil, "string contains a control character"},
		{"string long", str, strings.Repeat("é", 8193), nil, "string is longer than 8192 characters"},
		{"string at limit", str, strings.Repeat("é", 8192), strings.Repeat("é", 8192), ""},
		{"string bad utf8", str, "a\xffb", nil, "string is not valid UTF-8"},
		{"string from number", str, int64(42), nil, "expected a string"},
		{"string list for single", str, []any{"a"}, nil, "expected a single value, not a list or mapping"},
		{"string mapping", str, map[string]any{"a": "b"}, nil, "expected a single value, not a list or mapping"},
		{"nil", str, nil, nil, "expected a value"},
		{"nil one", one, nil, nil, "expected a value"},

		{"many dedup in order", strs, []any{"b", "a", "b", "c", "a"}, []any{"b", "a", "c"}, ""},
		{"many empty", strs, []any{}, []any{}, ""},
		{"many []string", strs, []string{"a", "a"}, []any{"a"}, ""},
		{"many scalar", strs, "a", nil, "expected a list"},
		{"many nested", strs, []any{"a", []any{"b"}}, nil, "expected a single value, not a list or mapping"},
		{"many null item", strs, []any{"a", nil}, nil, "expected a value"},
		{"many 1001", strs, hundreds, nil, "expected at most 1000 values"},
		{"many 1000", strs, hundreds[:1000], []any{"x"}, ""},

		{"integer", integer, int64(-3), int64(-3), ""},
		{"integer int", integer, 5, int64(5), ""},
		{"integer uint64 max", integer, uint64(math.MaxUint64), nil, "integer does not fit in 64 bits"},
		{"integer big fits", integer, fits, int64(7), ""},
		{"integer big", integer, huge, nil, "integer does not fit in 64 bits"},
		{"integer json", integer, json.Number("42"), int64(42), ""},
		{"integer json float", integer, json.Number("42.0"), nil, "expected an integer"},
		{"integer json big", integer, json.Number("99999999999999999999"), nil, "integer does not fit in 64 bits"},
		{"integer float", integer, 42.0, nil, "expected an integer"},
		{"integer bool", integer, true, nil, "expected an integer"},
		{"integer string", integer, "42", nil, "expected an integer"},

		{"number int", number, int64(2), int64(2), ""},
		{"number float", number, 2.5, 2.5, ""},
		{"number float32", number, float32(0.5), 0.5, ""},
		{"number json int", number, json.Number("3"), int64(3), ""},
		{"number json float", number, json.Number("3.25"), 3.25, ""},
		{"number json exp", number, json.Number("1e3"), 1000.0, ""},
		{"number json overflow", number, json.Number("1e400"), nil, "expected a finite number"},
		{"number big", number, huge, 1e20, ""},
		{"number nan", number, math.NaN(), nil, "expected a finite number"},
		{"number inf", number, math.Inf(-1), nil, "expected a finite number"},
		{"number bool", number, false, nil, "expected a number"},
		{"number string", number, "1", nil, "expected a number"},
		{"numbers 1 and 1.0 are one", numbers, []any{int64(1), 1.0, 2.5, json.Number("2.5")}, []any{int64(1), 2.5}, ""},

		{"boolean", boolean, true, true, ""},
		{"boolean string", boolean, "true", nil, "expected true or false"},
		{"boolean int", boolean, int64(1), nil, "expected true or false"},

		{"timestamp offset", ts, "2026-10-05T09:00:00+02:00", "2026-10-05T07:00:00.000000Z", ""},
		{"timestamp fraction", ts, "2026-10-05T07:00:00.1234567Z", "2026-10-05T07:00:00.123456Z", ""},
		{"timestamp no zone", ts, "2026-10-05T09:00:00", nil, "expected an ISO 8601 timestamp with a timezone"},
		{"timestamp date", ts, "2026-10-05", nil, "expected an ISO 8601 timestamp with a timezone"},
		{"timestamp number", ts, int64(1700000000), nil, "expected an ISO 8601 timestamp with a timezone"},
		{"timestamp empty", ts, "", nil, "expected a nonempty string"},

		{"identity", id, "repo:github.com/Team/x", "repo:github.com/Team/x", ""},
		{"identity bf canonical", id, "bf://acme/people/dana#", "bf://acme/people/dana", ""},
		{"identity bare word", id, "dana", nil, "expected an explicit namespaced identity"},
		{"identity upper scheme", id, "Repo:x", nil, "expected an explicit namespaced identity"},
		{"identity space", id, "person:dana smith", nil, "expected an explicit namespaced identity"},
		{"identity rel", id, "bf://acme/people/dana?rel=owner", nil, "identity must not contain a link relation"},
		{"identity number", id, int64(5), nil, "expected an explicit namespaced identity"},
		{"identity targets", people, []any{"person:email/a@x.test", "bf://acme/people/dana"}, []any{"person:email/a@x.test", "bf://acme/people/dana"}, ""},
		{"identity outside targets", people, []any{"person:email/a@x.test", "person:phone/1"}, nil, "identity outside the declared targets"},

		{"no type", &Field{}, "x", nil, "field declares no valid type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.f.Normalize(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Normalize() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Normalize() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Normalize() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	people := &Field{Type: TypeIdentity, Cardinality: Many, Relation: true, Targets: []string{"person:"}}
	_, err := people.Normalize([]any{"person:a", "repo:b"})
	var ve *ValueError
	if !errors.As(err, &ve) || ve.Index != 1 || !errors.Is(err, ErrOutsideTargets) {
		t.Errorf("got %#v", err)
	}
	one := &Field{Type: TypeString, Cardinality: one}
	if _, err := one.Normalize(nil); !errors.Is(err, errMissing) || !one.Required() {
		t.Errorf("nil: %v", err)
	}
	// JSON decoded with UseNumber and without both work for what they can express.
	var v any
	dec := json.NewDecoder(strings.NewReader(`[1, 2.5, "x"]`))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	num := &Field{Type: typeNumber, Cardinality: Many}
	if _, err := num.Normalize(v); err == nil || err.Error() != "expected a number" {
		t.Errorf("mixed list: %v", err)
	}
	got, err := num.Normalize(v.([]any)[:2])
	if err != nil || !cmp.Equal(got, []any{int64(1), 2.5}) {
		t.Errorf("json numbers: %v %v", got, err)
	}
}
