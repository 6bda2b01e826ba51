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
		{rememberInput, `{"type":"fact","title":"t","body":"b","pin":true,"importance":2}`, values{"type": "fact", "title": "t", "body": "b", "pin": true, "importance": int64(2)}, ""},
		{rememberInput, `{"type":"fact","title":"t","body":"b","pin":"yes"}`, nil, `invalid input: pin: must be true or false (got "yes")`},
		{rememberInput, `{"type":"fact","title":"","body":"b"}`, nil, "invalid input: title: must be at least 1 characters (got 0)"},
		{rememberInput, `{"type":"fiction","title":"t","body":"b"}`, nil, `invalid input: type: must be one of policy, constraint, decision, incident, gotcha, infra, access, fact, preference, relationship, state (got "fiction")`},
		{rememberInput, `{"title":"t","body":"b"}`, nil, "invalid input: type: required"},
		{rememberInput, `{"type":"fact","title":"t","body":"b","review":"` + strings.Repeat("x", 9000) + `"}`, values{"type": "fact", "title": "t", "body": "b", "review": strings.Repeat("x", 9000)}, ""},
		{recallInput, `{"limit":51}`, nil, "invalid input: limit: must be 1 to 50 (got 51)"},
		{briefInput, `{"bytes":255}`, nil, "invalid input: bytes: must be 256 to 1048576 (got 255)"},
		{askInput, `{"scope":"x"}`, nil, "invalid input: question: required"},
		{askInput, `{"question":"why","extra":1}`, nil, "invalid input: unknown argument extra"},
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
	for name, in := range map[string]input{"search": searchInput, "read": readInput, "remember": rememberInput,
		"recall": recallInput, "brief": briefInput, "ask": askInput} {
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
		for _, args := range []string{`{}`, `{"query":"a"}`, `{"query":"a","limit":0}`, `{"query":"a","limit":50}`, `{"ref":"x","offset":-1}`, `{"ref":1}`, `{"x":1}`, `{"offset":2.5}`,
			`{"type":"fact","title":"t","body":"b"}`, `{"type":"fact","title":"","body":"b"}`, `{"type":"fact","title":"t","body":"b","pin":1}`,
			`{"question":"q","scope":""}`, `{"bytes":255}`, `{"all":true,"limit":5}`} {
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
