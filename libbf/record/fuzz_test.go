package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var fuzzSeeds = []string{
	exampleA42,
	`{"id":"a","title":"t"}`,
	`{"id":"a","title":"t","text":"","time":"","url":"","links":[],"aliases":[],"attributes":{},"fields":{}}`,
	`{"id":"a","title":"t","text":null,"links":null,"attributes":null}`,
	"{\n  \"id\": \"atlas-status-2026-09-15\",\n  \"text\": \"Weekly status call for the Atlas team.\",\n  \"time\": \"2026-09-15T14:00:00Z\",\n  \"title\": \"Atlas weekly status\"\n}\n",
	`{"id":"a\/b#c?d","title":"<b>&amp;</b> é😀 \u2028","text":"q\"\\\b\f\n\r\t\u0001\u007f\ud83d\ude00"}`,
	`{"id":"a","title":"t","time":"2026-10-01 18:58:00.1234567+0200","attributes":{"updated":"","observed":"2026-10-02T08:15:03Z","partial":true}}`,
	`{"id":"a","title":"t","links":["b","a","b"," x","bf://acme/people/dana?rel=owner"],"aliases":["x:2","x:1","x:2","bf://acme/people/dana"]}`,
	`{"id":"a","title":"t","attributes":{"n":[123456789012345678901234567890,1.50,1E+2,-0,1e-400],"o":{"b":{},"a":[[]]}}}`,
	`{"id":"a","title":"t","fields":{"author":["person:email/dana@example.test"],"count":3,"kind":null}}`,
	`{"id":"a","id":"b","title":"t"}`,
	`{"id":"a","title":"t","attributes":{"x":{"y":1,"\u0079":2}}}`,
	`{"id":"\ud800","title":"t"}`,
	`{"id":"a","title":"\udc00\ud800"}`,
	"{\"id\":\"a\",\"title\":\"t\xff\"}",
	`{"id":"a","title":"t","attributes":{"x":1e400}}`,
	`{"id":"a","title":"t","unknown":1}`,
	`{"id":"a","title":"t"} {}`,
	`{"id":" ","title":"t"}`,
	`{"id":"a","title":"t","attributes":{"updated":5}}`,
	`{"id":"a","title":"t","attributes":{"partial":"yes"}}`,
	`{"id":"a","title":"t","aliases":["Dana"]}`,
	`{"id":"a","title":"t","fields":{"Bad":1}}`,
	`[]`,
	``,
	`{"id":"a","title":"t","attributes":{"x":` + nest(998, "1") + `}}`,
	`{"id":"a","title":"t","attributes":{"x":` + nest(999, "1") + `}}`,
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	// testdata/fuzz/FuzzParse adds whole record files of the example brain.
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			var fe *fieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %T is not a *FieldError: %v", err, err)
			}
			// Messages name fields; they never carry the document's content at length.
			if msg := err.Error(); len(msg) > 200 || !utf8.ValidString(msg) || hasControl(msg) {
				t.Fatalf("unexpected message %q", msg)
			}
			return
		}
		// Parse is stricter than encoding/json, never looser.
		// and decodes what both accept to the same values.
		var generic map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&generic); err != nil {
			t.Fatalf("Parse accepted what encoding/json refuses: %v", err)
		}
		fields, _ := generic["fields"].(map[string]any)
		text, _ := generic["text"].(string)
		if generic["id"] != r.ID || generic["title"] != r.Title || text != r.Text || !reflect.DeepEqual(fields, r.Fields) {
			t.Fatalf("Parse and encoding/json disagree on %q", data)
		}
		// A parsed record is valid as it stands, and validating it again changes nothing.
		again := r
		again.Attributes = cloneMap(r.Attributes)
		if err := again.Validate(); err != nil {
			t.Fatalf("Validate of a parsed record: %v", err)
		}
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("Validate changed a parsed record (-parsed +validated):\n%s", cmp.Diff(r, again))
		}
		c1, err := r.Canonical()
		if err != nil {
			var fe *fieldError
			if errors.As(err, &fe) && fe.Reason == reasonEncodedTooLong {
				return
			}
			t.Fatalf("Canonical of a parsed record: %v", err)
		}
		if !json.Valid(c1) || !bytes.HasSuffix(c1, []byte("}\n")) || bytes.Count(c1, []byte("\n")) != 1 {
			t.Fatalf("canonical form is not one compact JSON line: %q", c1)
		}
		r2, err := Parse(c1)
		if err != nil {
			t.Fatalf("Parse of canonical output %q: %v", c1, err)
		}
		if !reflect.DeepEqual(dropEmpty(r), dropEmpty(r2)) {
			t.Fatalf("canonical round trip changed the record (-first +second):\n%s", cmp.Diff(r, r2, cmpopts.EquateEmpty()))
		}
		c2, err := r2.Canonical()
		if err != nil {
			t.Fatalf("Canonical of the reparsed record: %v", err)
		}
		if !bytes.Equal(c1, c2) {
			t.Fatalf("canonical form is not a fixed point:\n%q\n%q", c1, c2)
		}
	})
}

// dropEmpty turns the record's empty maps and lists into nil, as the canonical form omits them.
// (cmp.Diff is far too slow for the deeply nested seeds, so equality uses reflect first.)
func dropEmpty(r Record) Record {
	if len(r.Links) == 0 {
		r.Links = nil
	}
	if len(r.Aliases) == 0 {
		r.Aliases = nil
	}
	if len(r.Attributes) == 0 {
		r.Attributes = nil
	}
	if len(r.Fields) == 0 {
		r.Fields = nil
	}
	return r
}

func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// The seeds are meant to reach both sides of every rule.
func TestFuzzSeedsCoverBothOutcomes(t *testing.T) {
	var ok, bad int
	for _, s := range fuzzSeeds {
		if _, err := Parse([]byte(s)); err == nil {
			ok++
		} else {
			bad++
		}
	}
	if ok < 8 || bad < 10 {
		t.Errorf("seeds: %d valid, %d invalid", ok, bad)
	}
}
