package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/bfgo/bf/libbf/compat"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// compatFiles lists the shared example brain's record files.
func compatFiles(t testing.TB) []string {
	t.Helper()
	compatMemories := filepath.Join(compat.Dir(t), "memories")
	files, err := filepath.Glob(filepath.Join(compatMemories, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skip("compat example brain not present")
	}
	return files
}

func TestParseCompatExamples(t *testing.T) {
	want := map[string]Record{
		"calendar/cb138461662bf25b608e6391919277e03ddf57b431f7079e6e6df310d4549f41.json": {
			ID: "atlas-status-2026-09-15", Title: "Atlas weekly status",
			Text: "Weekly status call for the Atlas team.", Time: "2026-09-15T14:00:00.000000Z",
		},
		"catalog/7473cad5080bcdf9b603f2d5d1fb5c4d6d6c7ff4c4b5499c9e5e70ca3d1cbcb4.json": {
			ID: "atlas-launch-plan", Title: "Atlas launch plan",
			Text: "Shared document in the Atlas folder.", Time: "2026-09-11T09:00:00.000000Z",
			URL: "https://docs.example.com/atlas-launch-plan",
		},
		"meetings/8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json": {
			ID: "offline", Title: "Atlas architecture review",
			Text:   "The review selected SQLite for local queries. Network-independent retrieval was the deciding constraint.",
			Time:   "2026-09-12T10:00:00.000000Z",
			Fields: map[string]any{"repository": []any{"repo:example/atlas"}},
		},
	}
	for _, f := range compatFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		r, err := Parse(data)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if err := CheckFileName(r, f); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		if w, ok := want[rel]; ok {
			if d := cmp.Diff(w, r); d != "" {
				t.Errorf("%s (-want +got):\n%s", rel, d)
			}
		}
		// The canonical form is compact, with canonical times, and parses back to itself.
		c, err := r.Canonical()
		if err != nil {
			t.Fatalf("%s: Canonical: %v", rel, err)
		}
		r2, err := Parse(c)
		if err != nil {
			t.Fatalf("%s: Parse(Canonical): %v", rel, err)
		}
		if d := cmp.Diff(r, r2); d != "" {
			t.Errorf("%s: canonical round trip (-first +second):\n%s", rel, d)
		}
	}
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Record
	}{
		{
			name: "minimal",
			in:   `{"id":"a","title":"t"}`,
			want: Record{ID: "a", Title: "t"},
		},
		{
			name: "whitespace around the object",
			in:   " \n\t{\"title\" : \"t\" , \"id\" : \"a\"}\r\n ",
			want: Record{ID: "a", Title: "t"},
		},
		{
			name: "null means absent for optional fields",
			in:   `{"id":"a","title":"t","text":null,"time":null,"url":null,"links":null,"aliases":null,"attributes":null,"fields":null}`,
			want: Record{ID: "a", Title: "t"},
		},
		{
			name: "escapes and a surrogate pair",
			in:   `{"id":"a\/b","title":"\u00e9\ud83d\ude00 \"q\" \\","text":"l1\nl2\t\u0000\b\f\r"}`,
			want: Record{ID: "a/b", Title: "é😀 \"q\" \\", Text: "l1\nl2\t\x00\b\f\r"},
		},
		{
			name: "times become canonical UTC",
			in:   `{"id":"a","title":"t","time":"2026-10-01T18:58:00+02:00","attributes":{"updated":"2026-10-01 17:00Z","observed":"2026-10-02T08:15:03.412Z"}}`,
			want: Record{ID: "a", Title: "t", Time: "2026-10-01T16:58:00.000000Z", Attributes: map[string]any{
				"updated": "2026-10-01T17:00:00.000000Z", "observed": "2026-10-02T08:15:03.412000Z",
			}},
		},
		{
			name: "empty updated is kept as written",
			in:   `{"id":"a","title":"t","attributes":{"updated":"","partial":false}}`,
			want: Record{ID: "a", Title: "t", Attributes: map[string]any{"updated": "", "partial": false}},
		},
		{
			name: "links and aliases sorted and deduplicated",
			in:   `{"id":"a","title":"t","links":["b","é","Z","b","a"],"aliases":["x:2","x:1","x:2"]}`,
			want: Record{ID: "a", Title: "t", Links: []string{"Z", "a", "b", "é"}, Aliases: []string{"x:1", "x:2"}},
		},
		{
			name: "numbers kept as written",
			in:   `{"id":"a","title":"t","attributes":{"big":123456789012345678901234567890,"f":1.50,"e":1E+2,"neg":-0,"tiny":1e-400},"fields":{"n":[0.1]}}`,
			want: Record{ID: "a", Title: "t",
				Attributes: map[string]any{
					"big": json.Number("123456789012345678901234567890"), "f": json.Number("1.50"),
					"e": json.Number("1E+2"), "neg": json.Number("-0"), "tiny": json.Number("1e-400"),
				},
				Fields: map[string]any{"n": []any{json.Number("0.1")}},
			},
		},
		{
			name: "any JSON in attributes",
			in:   `{"id":"a","title":"t","attributes":{"o":{"l":[true,null,{},[]],"s":"x"}}}`,
			want: Record{ID: "a", Title: "t", Attributes: map[string]any{
				"o": map[string]any{"l": []any{true, nil, map[string]any{}, []any{}}, "s": "x"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// nest wraps v in n arrays.
func nest(n int, v string) string {
	return strings.Repeat("[", n) + v + strings.Repeat("]", n)
}

func TestParseErrors(t *testing.T) {
	const unknown = "unknown key; a record holds only id, title, text, time, url, links, aliases, attributes and fields"
	const unicode = "must be valid Unicode, without invalid UTF-8 or lone surrogates"
	tests := []struct {
		name string
		in   string
		want string
	}{
		// Documents.
		{"empty", ``, "invalid JSON document"},
		{"truncated", `{"id":"a","title":"t"`, "invalid JSON document"},
		{"trailing text", `{"id":"a","title":"t"} x`, "invalid JSON document"},
		{"second object", `{"id":"a","title":"t"}{}`, "invalid JSON document"},
		{"trailing comma", `{"id":"a","title":"t",}`, "invalid JSON document"},
		{"single quotes", `{'id':"a","title":"t"}`, "invalid JSON document"},
		{"NaN", `{"id":"a","title":"t","attributes":{"x":NaN}}`, "invalid JSON document"},
		{"Infinity", `{"id":"a","title":"t","attributes":{"x":-Infinity}}`, "invalid JSON document"},
		{"float overflow", `{"id":"a","title":"t","attributes":{"x":1e400}}`, "invalid JSON document"},
		{"negative float overflow", `{"id":"a","title":"t","fields":{"x":-1.5e309}}`, "invalid JSON document"},
		{"leading zero", `{"id":"a","title":"t","attributes":{"x":01}}`, "invalid JSON document"},
		{"byte order mark", "\ufeff{\"id\":\"a\",\"title\":\"t\"}", "invalid JSON document"},
		{"raw control in string", "{\"id\":\"a\",\"title\":\"t\",\"text\":\"a\nb\"}", "invalid JSON document"},
		{"bad escape", `{"id":"a","title":"t\x"}`, "invalid JSON document"},
		{"array", `[{"id":"a","title":"t"}]`, "a record must be a JSON object"},
		{"string", `"a"`, "a record must be a JSON object"},
		{"null", `null`, "a record must be a JSON object"},
		{"too deep", `{"id":"a","title":"t","attributes":{"x":` + nest(999, "1") + `}}`, "attributes: JSON nests deeper than 1,000 levels"},
		// Keys.
		{"unknown key", `{"id":"a","title":"t","summary":"s"}`, "summary: " + unknown},
		{"unknown key not named", `{"id":"a","title":"t","a b":1}`, unknown},
		{"key case matters", `{"ID":"a","title":"t"}`, "ID: " + unknown},
		{"duplicate top-level key", `{"id":"a","title":"t","id":"b"}`, "id: JSON contains a duplicate key"},
		{"duplicate key spelt with an escape", `{"id":"a","title":"t","fields":{"a":1,"\u0061":2}}`, "fields: JSON contains a duplicate key"},
		{"duplicate nested key", `{"id":"a","title":"t","attributes":{"x":{"y":1,"y":1}}}`, "attributes: JSON contains a duplicate key"},
		{"duplicate key inside a list", `{"id":"a","title":"t","attributes":{"l":[{},{"k":1,"k":2}]}}`, "attributes: JSON contains a duplicate key"},
		// Unicode.
		{"lone high surrogate", `{"id":"\ud800","title":"t"}`, "id: " + unicode},
		{"lone low surrogate", `{"id":"a","title":"t","links":["x","\udc00"]}`, "links.1: " + unicode},
		{"high surrogate then letter", `{"id":"a","title":"\ud800\u0041"}`, "title: " + unicode},
		{"high surrogate at the end", `{"id":"a","title":"t","text":"abc\udbff"}`, "text: " + unicode},
		{"two high surrogates", `{"id":"a","title":"t","url":"\ud800\ud800"}`, "url: " + unicode},
		{"surrogate in an alias", `{"id":"a","title":"t","aliases":["x:\udfff"]}`, "aliases.0: " + unicode},
		{"surrogate in an attribute key", `{"id":"a","title":"t","attributes":{"\udfff":1}}`, "attributes: " + unicode},
		{"surrogate deep in fields", `{"id":"a","title":"t","fields":{"f":[{"k":"\ud801"}]}}`, "fields: " + unicode},
		{"surrogate in a top-level key", `{"id":"a","title":"t","\ud800":1}`, "JSON strings " + unicode},
		{"invalid UTF-8 byte", "{\"id\":\"a\",\"title\":\"t\xff\"}", "title: " + unicode},
		{"UTF-8 encoded surrogate", "{\"id\":\"a\",\"title\":\"t\",\"time\":\"\xed\xa0\x80\"}", "time: " + unicode},
		{"invalid UTF-8 after an escape", "{\"id\":\"a\\n\xc3\",\"title\":\"t\"}", "id: " + unicode},
		// Types.
		{"id missing", `{"title":"t"}`, "id: is required"},
		{"title missing", `{"id":"a"}`, "title: is required"},
		{"id number", `{"id":1,"title":"t"}`, "id: must be a string"},
		{"id null", `{"id":null,"title":"t"}`, "id: must be a string"},
		{"text number", `{"id":"a","title":"t","text":5}`, "text: must be a string"},
		{"time bool", `{"id":"a","title":"t","time":true}`, "time: must be a string"},
		{"links string", `{"id":"a","title":"t","links":"x"}`, "links: must be a list of strings"},
		{"links with a number", `{"id":"a","title":"t","links":["a",3]}`, "links.1: must be a string"},
		{"aliases object", `{"id":"a","title":"t","aliases":{}}`, "aliases: must be a list of strings"},
		{"attributes list", `{"id":"a","title":"t","attributes":[]}`, "attributes: must be an object"},
		{"fields string", `{"id":"a","title":"t","fields":"x"}`, "fields: must be an object"},
		// Validation runs after decoding.
		{"blank title", `{"id":"a","title":" "}`, "title: must not be blank"},
		{"updated number", `{"id":"a","title":"t","attributes":{"updated":1}}`, "attributes.updated requires a timestamp string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			checkErr(t, err, tt.want)
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %q", want)
	}
	var fe *fieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error %T is not a *FieldError: %v", err, err)
	}
	if d := cmp.Diff(want, err.Error()); d != "" {
		t.Errorf("error (-want +got):\n%s", d)
	}
}

func TestParseDepthLimit(t *testing.T) {
	// The record is level 1 and attributes level 2, so 998 arrays inside reach level 1,000.
	in := `{"attributes":{"x":` + nest(998, "1") + `},"id":"a","title":"t"}`
	r, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("Validate of a parsed deep record: %v", err)
	}
	c, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSuffix(string(c), "\n"); got != in {
		t.Errorf("Canonical = %.80q…", got)
	}
}

func TestParseFileSize(t *testing.T) {
	// A valid record padded with whitespace to exactly the limit is read; one byte more is not.
	rec := []byte(`{"id":"a","title":"t"}`)
	ok := append(rec, bytes.Repeat([]byte(" "), MaxFileSize-len(rec))...)
	if _, err := Parse(ok); err != nil {
		t.Fatalf("record of exactly 16 MiB: %v", err)
	}
	_, err := Parse(append(ok, ' '))
	checkErr(t, err, "record file exceeds 16 MiB")
}

func TestUnmarshalJSON(t *testing.T) {
	var rs []Record
	in := `[{"id":"b","title":"B","links":["y","x"]},{"id":"a","title":"A","time":"2026-09-15T14:00:00Z"}]`
	if err := json.Unmarshal([]byte(in), &rs); err != nil {
		t.Fatal(err)
	}
	want := []Record{
		{ID: "b", Title: "B", Links: []string{"x", "y"}},
		{ID: "a", Title: "A", Time: "2026-09-15T14:00:00.000000Z"},
	}
	if d := cmp.Diff(want, rs); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// encoding/json keeps the last duplicate; the record's own rules still apply inside.
	err := json.Unmarshal([]byte(`[{"id":"a","id":"b","title":"t"}]`), &rs)
	checkErr(t, err, "id: JSON contains a duplicate key")
}
