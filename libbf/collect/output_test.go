package collect

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/record"
)

const outputConfig = `version: 8
name: b
fields:
  status:
    description: Where the item stands.
    type: string
    cardinality: one
  owner:
    description: Who answers for it.
    type: identity
    cardinality: many
    relation: true
    targets: [person:]
  size:
    description: How big it is.
    type: integer
    default: /attributes/size
  team:
    description: The team.
    type: string
sensors:
  plain:
    command: [sensors/plain]
  mapped:
    command: [sensors/mapped]
    fields:
      status: {path: /attributes/state}
      owner: {path: /attributes/people}
      team: {value: billing}
`

func TestParseOutput(t *testing.T) {
	cfg, err := config.Parse("bf.yaml", []byte(outputConfig))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		sensor string
		out    string
		want   *output
		err    string
	}{
		{"empty array", "plain", ` [] `, &output{Records: []record.Record{}}, ""},
		{"array", "plain", `[{"id":"a","title":"A","time":"2026-10-01T14:00:00+02:00"},{"id":"b","title":"B"}]`,
			&output{Records: []record.Record{{ID: "a", Title: "A", Time: "2026-10-01T12:00:00.000000Z"}, {ID: "b", Title: "B"}}}, ""},
		{"envelope with incomplete", "plain", `{"incomplete":{"missed":3},"records":[{"id":"a","title":"A"}]}`,
			&output{Records: []record.Record{{ID: "a", Title: "A"}}, Incomplete: &Incomplete{Missed: 3}}, ""},
		{"envelope without incomplete", "plain", `{"records":[]}`, &output{Records: []record.Record{}}, ""},
		{"nothing missed is complete", "plain", `{"records":[{"id":"a","title":"A"}],"incomplete":{"missed":0}}`,
			&output{Records: []record.Record{{ID: "a", Title: "A"}}}, ""},
		{"default pointer", "plain", `[{"id":"a","title":"A","attributes":{"size":4}}]`,
			&output{Records: []record.Record{{ID: "a", Title: "A", Attributes: map[string]any{"size": jsonNumber("4")},
				Fields: map[string]any{"size": int64(4)}}}}, ""},
		{"mappings", "mapped", `[{"id":"a","title":"A","attributes":{"state":"open","people":["person:email/a@x.test","person:email/a@x.test"]}}]`,
			&output{Records: []record.Record{{ID: "a", Title: "A",
				Attributes: map[string]any{"state": "open", "people": []any{"person:email/a@x.test", "person:email/a@x.test"}},
				Fields:     map[string]any{"status": "open", "owner": []any{"person:email/a@x.test"}, "team": "billing"}}}}, ""},
		{"printed fields are checked", "plain", `[{"id":"a","title":"A","fields":{"team":"ops","size":"2"}}]`, nil,
			"record at index 0 (id \"a\"): fields.size: expected an integer"},
		{"printed fields must be declared", "plain", `[{"id":"a","title":"A","fields":{"colour":"red"}}]`, nil,
			"record at index 0 (id \"a\"): fields.colour: not declared in bf.yaml fields; remove it or declare the field"},
		{"a required mapping that finds nothing", "mapped", `[{"id":"a","title":"A","attributes":{}}]`, nil,
			"record at index 0 (id \"a\"): fields.status: its path found no value and the field requires one (cardinality one)"},
		{"a mapped value of the wrong type", "mapped", `[{"id":"a","title":"A","attributes":{"state":7}}]`, nil,
			"record at index 0 (id \"a\"): fields.status: expected a string"},
		{"an identity outside the targets", "mapped", `[{"id":"a","title":"A","attributes":{"state":"x","people":["team:ops"]}}]`, nil,
			"record at index 0 (id \"a\"): fields.owner.0: identity outside the declared targets"},
		{"an invalid record names its index and id", "plain", `[{"id":"a","title":"A"},{"id":"b","title":""}]`, nil,
			"record at index 1 (id \"b\"): title: "},
		{"an unknown key", "plain", `[{"id":"a","title":"A","colour":1}]`, nil,
			"record at index 0 (id \"a\"): colour: unknown key"},
		{"a duplicate key inside a record", "plain", `[{"id":"a","title":"A","title":"B"}]`, nil,
			"record at index 0 (id \"a\"): "},
		{"a record that is no object", "plain", `[{"id":"a","title":"A"},3]`, nil, "record at index 1: "},
		{"an id with a control character is not shown", "plain", `[{"id":"a\u0007","title":"A"}]`, nil, "record at index 0: id: "},
		{"duplicate ids", "plain", `[{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"a","title":"C"}]`, nil,
			"record at index 2 (id \"a\"): repeats the id of the record at index 0; ids must be unique"},
		{"NaN", "plain", `[{"id":"a","title":"A","attributes":{"x":NaN}}]`, nil, "output is not one valid JSON document"},
		{"two documents", "plain", `[] []`, nil, "output is not one valid JSON document"},
		{"nothing", "plain", ``, nil, "output is not one valid JSON document"},
		{"a string", "plain", `"x"`, nil, "expected a JSON array of records"},
		{"envelope without records", "plain", `{"incomplete":{"missed":1}}`, nil, `output object has no "records" array`},
		{"envelope with null records", "plain", `{"records":null}`, nil, "records: expected a JSON array of records"},
		{"envelope with an unknown key", "plain", `{"records":[],"next":1}`, nil, "output object holds an unknown key"},
		{"envelope repeating a key", "plain", `{"records":[],"records":[]}`, nil, "output object repeats a key"},
		{"negative missed", "plain", `{"records":[],"incomplete":{"missed":-1}}`, nil, "incomplete: expected"},
		{"fractional missed", "plain", `{"records":[],"incomplete":{"missed":1.5}}`, nil, "incomplete: expected"},
		{"missed missing", "plain", `{"records":[],"incomplete":{}}`, nil, "incomplete: expected"},
		{"other incomplete keys", "plain", `{"records":[],"incomplete":{"missed":1,"why":"x"}}`, nil, "incomplete: expected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOutput(cfg, tt.sensor, []byte(tt.out))
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error %v, want one starting %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseTime(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no time zone database")
	}
	now := time.Date(2026, 10, 25, 12, 0, 0, 0, paris) // the day summer time ends
	tests := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{"now", now, false},
		{"today", time.Date(2026, 10, 25, 0, 0, 0, 0, paris), false},
		{"yesterday", time.Date(2026, 10, 24, 0, 0, 0, 0, paris), false},
		{"12h", now.Add(-12 * time.Hour), false},
		{"7d", now.Add(-7 * 24 * time.Hour), false},
		{"2w", now.Add(-14 * 24 * time.Hour), false},
		{"2026-10-01", time.Date(2026, 10, 1, 0, 0, 0, 0, paris), false},
		{"2026-10-01T08:00:00Z", time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC), false},
		{"2026-10-01T10:00:00+02:00", time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC), false},
		{"2026-10", time.Time{}, true},
		{"2026-10-01..2026-10-02", time.Time{}, true},
		{"2026-10-01T08:00:00", time.Time{}, true},
		{"0h", time.Time{}, true},
		{"2026-02-30", time.Time{}, true},
		{"tomorrow", time.Time{}, true},
		{"", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := ParseTime(tt.in, now, paris)
		if tt.bad {
			if err != errTime {
				t.Errorf("%q: %v, %v; want errTime", tt.in, got, err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%q = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func jsonNumber(s string) any { return json.Number(s) }
