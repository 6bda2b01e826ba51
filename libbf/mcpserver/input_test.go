package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestInputCheck(t *testing.T) {
	tests := []struct {
		in   input
		args string
		want values
		err  string
	}{
		{searchInput, `{"query":"a"}`, values{"query": "a"}, ""},
		{searchInput, `{"query":"a","limit":5.0,"offset":0,"scope":""}`, values{"query": "a", "limit": int64(5), "offset": int64(0), "scope": ""}, ""},
		{searchInput, `{"query":"a","limit":1E1}`, values{"query": "a", "limit": int64(10)}, ""},
		{searchInput, `{"query":"a","limit":0}`, nil, "invalid input: limit: must be 1 to 50 (got 0)"},
		{searchInput, `{"query":"a","limit":1e400}`, nil, "invalid input: limit: must be 1 to 50 (got 1e400)"},
		{searchInput, `{"query":"a","limit":1e999999999999}`, nil, "invalid input: limit: must be 1 to 50 (got 1e999999999999)"},
		{searchInput, `{"query":"a","limit":1e-999999999999}`, nil, "invalid input: limit: must be an integer (got 1e-999999999999)"},
		{searchInput, `{"query":"a","limit":null}`, nil, "invalid input: limit: must be an integer (got null)"},
		{searchInput, `{"query":"a","offset":9007199254740991}`, values{"query": "a", "offset": int64(9007199254740991)}, ""},
		{searchInput, `{"query":"a","offset":9007199254740992}`, nil, "invalid input: offset: must be 0 to 9007199254740991 (got 9007199254740992)"},
		{searchInput, `{}`, nil, "invalid input: query: required"},
		{searchInput, ``, nil, "invalid input: query: required"},
		{searchInput, `{"query":"a","zz":1,"aa":2}`, nil, "invalid input: unknown argument aa"},
		{searchInput, `"x"`, nil, "invalid input: arguments: must be an object"},
		{searchInput, `{"query":["a"]}`, nil, `invalid input: query: must be a string (got ["a"])`},
		{searchInput, `{"query":"` + string(make([]byte, 0)) + `0123456789012345678901234567890123456789xx"}`, values{"query": "0123456789012345678901234567890123456789xx"}, ""},
		{readInput, `null`, values{}, ""},
		{readInput, `{"rel":"` + string(json.RawMessage("r")) + `"}`, values{"rel": "r"}, ""},
		{readInput, `{"ref":12345678901234567890123456789012345678901234567890}`, nil, "invalid input: ref: must be a string (got 1234567890123456789012345678901234567890…)"},
	}
	for _, tt := range tests {
		got, err := tt.in.check(json.RawMessage(tt.args))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if msg != tt.err {
			t.Errorf("%s: error %q, want %q", tt.args, msg, tt.err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.args, diff)
		}
	}
}

// TestInputSchema: the published schema compiles and refuses what check refuses.
func TestInputSchema(t *testing.T) {
	for name, in := range map[string]input{"search": searchInput, "read": readInput} {
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(in.schema()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		c := jsonschema.NewCompiler()
		if err := c.AddResource("mem:///in.json", doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("mem:///in.json")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, args := range []string{`{}`, `{"query":"a"}`, `{"query":"a","limit":0}`, `{"query":"a","limit":50}`, `{"ref":"x","offset":-1}`, `{"ref":1}`, `{"x":1}`, `{"offset":2.5}`} {
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
			if err != nil {
				t.Fatal(err)
			}
			_, cerr := in.check(json.RawMessage(args))
			if verr := sch.Validate(v); (verr == nil) != (cerr == nil) {
				t.Errorf("%s %s: schema says %v, check says %v", name, args, verr, cerr)
			}
		}
	}
}
