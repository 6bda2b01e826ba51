package record

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A one-line record as bf writes it, kept byte for byte.
const exampleA42 = `{"attributes":{"observed":"2026-10-02T08:15:03.412000Z","updated":"2026-10-01T17:00:00.000000Z"},"fields":{"author":["person:email/dana@example.test"],"kind":"commit"},"id":"acme/billing@4f2a9c1","links":["repo:github.com/acme/billing"],"text":"Add ledger adapter","time":"2026-10-01T16:58:00.000000Z","title":"Add ledger adapter","url":"https://github.com/acme/billing/commit/4f2a9c1"}` + "\n"

func TestCanonicalExampleA42(t *testing.T) {
	r, err := Parse([]byte(exampleA42))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(exampleA42, string(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestCanonicalCompatExamples(t *testing.T) {
	want := map[string]string{
		"calendar/cb138461662bf25b608e6391919277e03ddf57b431f7079e6e6df310d4549f41.json": `{"id":"atlas-status-2026-09-15","text":"Weekly status call for the Atlas team.","time":"2026-09-15T14:00:00.000000Z","title":"Atlas weekly status"}` + "\n",
		"catalog/7473cad5080bcdf9b603f2d5d1fb5c4d6d6c7ff4c4b5499c9e5e70ca3d1cbcb4.json":  `{"id":"atlas-launch-plan","text":"Shared document in the Atlas folder.","time":"2026-09-11T09:00:00.000000Z","title":"Atlas launch plan","url":"https://docs.example.com/atlas-launch-plan"}` + "\n",
		"meetings/8e2c7ac508139a02af859de64a4743c1f3946837279332c35ec8f5ddf20654ae.json": `{"fields":{"repository":["repo:example/atlas"]},"id":"offline","text":"The review selected SQLite for local queries. Network-independent retrieval was the deciding constraint.","time":"2026-09-12T10:00:00.000000Z","title":"Atlas architecture review"}` + "\n",
		"meetings/d47c40bea34483aafa4af5bd36af4f6adff17bda66d1cedbaf9c93e9bb9cf387.json": `{"fields":{"repository":["repo:example/zephyr"]},"id":"zephyr","text":"The review selected a hosted dashboard for the campaign.","time":"2026-09-13T10:00:00.000000Z","title":"Zephyr campaign review"}` + "\n",
	}
	for _, f := range compatFiles(t) {
		rel := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		w, ok := want[rel]
		if !ok {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(w, string(got)); d != "" {
			t.Errorf("%s (-want +got):\n%s", rel, d)
		}
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct {
		name string
		in   string // parsed first
		want string // without the trailing newline
	}{
		{
			name: "empty values left out",
			in:   `{"url":"","time":"","text":"","links":[],"aliases":[],"attributes":{},"fields":{},"title":"t","id":"a"}`,
			want: `{"id":"a","title":"t"}`,
		},
		{
			name: "keys sorted at every level",
			in:   `{"title":"t","id":"a","fields":{"z":1,"a":{"y":[{"b":1,"a":2}],"x":null}},"attributes":{"é":1,"Z":2,"a":3,"":4}}`,
			want: `{"attributes":{"":4,"Z":2,"a":3,"é":1},"fields":{"a":{"x":null,"y":[{"a":2,"b":1}]},"z":1},"id":"a","title":"t"}`,
		},
		{
			name: "string escapes as the original writes them",
			in:   `{"id":"a","title":"<b>&amp;</b> é😀 \u2028\u2029","text":"q\"\\\/\b\f\n\r\t\u0001\u001f\u007f\u0080\u00e9\ud83d\ude00"}`,
			want: "{\"id\":\"a\",\"text\":\"q\\\"\\\\/\\b\\f\\n\\r\\t\\u0001\\u001f\x7f\u0080é😀\",\"title\":\"<b>&amp;</b> é😀 \u2028\u2029\"}",
		},
		{
			name: "numbers printed as written",
			in:   `{"id":"a","title":"t","attributes":{"n":[123456789012345678901234567890,1.50,1E+2,-0,0.1e-5,1e-400]}}`,
			want: `{"attributes":{"n":[123456789012345678901234567890,1.50,1E+2,-0,0.1e-5,1e-400]},"id":"a","title":"t"}`,
		},
		{
			name: "literals and empty containers inside values",
			in:   `{"id":"a","title":"t","attributes":{"partial":true,"x":[false,null,{},[]],"updated":""}}`,
			want: `{"attributes":{"partial":true,"updated":"","x":[false,null,{},[]]},"id":"a","title":"t"}`,
		},
		{
			name: "pretty input becomes compact",
			in:   "{\n  \"id\": \"a\",\n  \"links\": [ \"y\" , \"x\" ],\n  \"title\": \"t\"\n}\n",
			want: `{"id":"a","links":["x","y"],"title":"t"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want+"\n", string(got)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			// The canonical form is a fixed point.
			r2, err := Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := r2.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again) {
				t.Errorf("not a fixed point:\n%s\n%s", got, again)
			}
		})
	}
}

func TestCanonicalGoValues(t *testing.T) {
	r := Record{ID: "a", Title: "t", Attributes: map[string]any{
		"f": []any{1.0, 1e16, 1e15, 123456.789, 1e-5, 0.0001, -2.5e-7, 1.5e300, 100.0, 0.1, 1e22, 12345678901234567890.0, math.Copysign(0, -1), 0.0},
		"i": []any{3, int64(-9007199254740993)},
		"s": []string{"b", "a"},
	}}
	got, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	// Floats print in shortest round-trip form: whole numbers with .0, scientific notation
	// outside [1e-4, 1e16).
	want := `{"attributes":{"f":[1.0,1e+16,1000000000000000.0,123456.789,1e-05,0.0001,-2.5e-07,1.5e+300,100.0,0.1,1e+22,1.2345678901234567e+19,-0.0,0.0],"i":[3,-9007199254740993],"s":["b","a"]},"id":"a","title":"t"}` + "\n"
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestCanonicalLeavesRecordAlone(t *testing.T) {
	r := Record{ID: "a", Title: "t", Time: "2026-09-15T16:00:00+02:00", Links: []string{"b", "a"},
		Attributes: map[string]any{"updated": "2026-09-15T16:00:00+02:00"}}
	before := Record{ID: "a", Title: "t", Time: "2026-09-15T16:00:00+02:00", Links: []string{"b", "a"},
		Attributes: map[string]any{"updated": "2026-09-15T16:00:00+02:00"}}
	got, err := r.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"attributes":{"updated":"2026-09-15T14:00:00.000000Z"},"id":"a","links":["a","b"],"time":"2026-09-15T14:00:00.000000Z","title":"t"}` + "\n"
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff(before, r); d != "" {
		t.Errorf("Canonical changed its record (-before +after):\n%s", d)
	}
}

func TestCanonicalErrors(t *testing.T) {
	_, err := Record{ID: "a"}.Canonical()
	checkErr(t, err, "title: must be 1-4,096 characters")
	_, err = Record{ID: "a", Title: "t", Attributes: map[string]any{"partial": 1}}.MarshalJSON()
	checkErr(t, err, "attributes.partial requires a boolean")

	// Text within its character limit can still escape to more than a file may hold.
	r := Record{ID: "a", Title: "t", Text: repeat("\x01", 3_000_000)}
	_, err = r.Canonical()
	checkErr(t, err, "record file would exceed 16 MiB")
}

func TestMarshalJSON(t *testing.T) {
	r := Record{ID: "a", Title: "<t>", Links: []string{"y", "x"}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"record": r}); err != nil {
		t.Fatal(err)
	}
	want := `{"record":{"id":"a","links":["x","y"],"title":"<t>"}}` + "\n"
	if d := cmp.Diff(want, buf.String()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
