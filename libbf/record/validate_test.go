package record

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rec returns a valid minimal record changed by f.
func rec(f func(r *Record)) Record {
	r := Record{ID: "a", Title: "t"}
	if f != nil {
		f(&r)
	}
	return r
}

func repeat(s string, n int) string { return strings.Repeat(s, n) }

func many(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func TestValidateErrors(t *testing.T) {
	cycle := map[string]any{}
	cycle["self"] = cycle
	tests := []struct {
		name string
		r    Record
		want string // "" when valid
	}{
		// id
		{"id empty", rec(func(r *Record) { r.ID = "" }), "id: must be 1-4,096 characters"},
		{"id 4,096 characters", rec(func(r *Record) { r.ID = repeat("/", 4096) }), ""},
		{"id 4,097 characters", rec(func(r *Record) { r.ID = repeat("a", 4097) }), "id: must be 1-4,096 characters"},
		{"id counts characters, not bytes", rec(func(r *Record) { r.ID = repeat("é", 2000) }), "id: must fit 7,988 characters once percent-encoded for a bf:// address"},
		{"id blank", rec(func(r *Record) { r.ID = " \u00a0\u3000" }), "id: must not be blank"},
		{"id tab", rec(func(r *Record) { r.ID = "a\tb" }), "id: must not contain control characters"},
		{"id DEL", rec(func(r *Record) { r.ID = "a\x7f" }), "id: must not contain control characters"},
		{"id C1", rec(func(r *Record) { r.ID = "a\u0085" }), "id: must not contain control characters"},
		{"id NUL", rec(func(r *Record) { r.ID = "a\x00" }), "id: must not contain control characters"},
		{"id escaped 7,988", rec(func(r *Record) { r.ID = repeat("#", 2662) + "ab" }), ""},
		{"id escaped 7,989", rec(func(r *Record) { r.ID = repeat("#", 2663) }), "id: must fit 7,988 characters once percent-encoded for a bf:// address"},
		{"id keeps unreserved and /@:", rec(func(r *Record) { r.ID = repeat("a-_.~/@:Z9", 409) }), ""},
		{"id invalid UTF-8", rec(func(r *Record) { r.ID = "a\xff" }), "id: must be valid Unicode, without invalid UTF-8 or lone surrogates"},
		// title
		{"title empty", rec(func(r *Record) { r.Title = "" }), "title: must be 1-4,096 characters"},
		{"title 4,096 characters", rec(func(r *Record) { r.Title = repeat("é", 4096) }), ""},
		{"title 4,097 characters", rec(func(r *Record) { r.Title = repeat("é", 4097) }), "title: must be 1-4,096 characters"},
		{"title blank", rec(func(r *Record) { r.Title = " \n " }), "title: must not be blank"},
		{"title newline", rec(func(r *Record) { r.Title = "a\nb" }), "title: must not contain control characters"},
		{"title format characters allowed", rec(func(r *Record) { r.Title = "a\u200bb\u00ad" }), ""},
		{"title invalid UTF-8", rec(func(r *Record) { r.Title = "\xc3" }), "title: must be valid Unicode, without invalid UTF-8 or lone surrogates"},
		// text
		{"text at the limit", rec(func(r *Record) { r.Text = repeat("\n", maxTextLength) }), ""},
		{"text over the limit", rec(func(r *Record) { r.Text = repeat("é", maxTextLength+1) }), "text: must be at most 4,194,304 characters"},
		{"text invalid UTF-8", rec(func(r *Record) { r.Text = "\xed\xa0\x80" }), "text: must be valid Unicode, without invalid UTF-8 or lone surrogates"},
		// time
		{"time without zone", rec(func(r *Record) { r.Time = "2026-09-15T14:00:00" }), "time: expected an ISO 8601 timestamp with a timezone"},
		{"time a day", rec(func(r *Record) { r.Time = "2026-09-15" }), "time: expected an ISO 8601 timestamp"},
		{"time not a date", rec(func(r *Record) { r.Time = "2026-02-30T00:00:00Z" }), "time: expected an ISO 8601 timestamp"},
		// url
		{"url at the limit", rec(func(r *Record) { r.URL = repeat("é", 8192) }), ""},
		{"url over the limit", rec(func(r *Record) { r.URL = repeat("u", 8193) }), "url: must be at most 8,192 characters"},
		{"url control", rec(func(r *Record) { r.URL = "https://x.test/\r\n" }), "url: must not contain control characters"},
		{"url invalid UTF-8", rec(func(r *Record) { r.URL = "\x80" }), "url: must be valid Unicode, without invalid UTF-8 or lone surrogates"},
		// links
		{"links 1,000", rec(func(r *Record) { r.Links = many(1000, strconv.Itoa) }), ""},
		{"links 1,001", rec(func(r *Record) { r.Links = many(1001, strconv.Itoa) }), "links: must hold at most 1,000 links"},
		{"links counted before deduplication", rec(func(r *Record) { r.Links = many(1001, func(int) string { return "x" }) }), "links: must hold at most 1,000 links"},
		{"link empty", rec(func(r *Record) { r.Links = []string{"a", ""} }), "links.1: must not be blank"},
		{"link blank", rec(func(r *Record) { r.Links = []string{" "} }), "links.0: must not be blank"},
		{"link at the limit", rec(func(r *Record) { r.Links = []string{repeat("é", 8192)} }), ""},
		{"link over the limit", rec(func(r *Record) { r.Links = []string{"a", "b", repeat("l", 8193)} }), "links.2: must be at most 8,192 characters"},
		{"link control", rec(func(r *Record) { r.Links = []string{"a\x1b[31m"} }), "links.0: must not contain control characters"},
		{"link invalid UTF-8", rec(func(r *Record) { r.Links = []string{"\xff"} }), "links.0: must be valid Unicode, without invalid UTF-8 or lone surrogates"},
		{"link any text", rec(func(r *Record) { r.Links = []string{"Dana Example", "https://x.test/a b"} }), ""},
		// aliases
		{"aliases 1,000", rec(func(r *Record) { r.Aliases = many(1000, func(i int) string { return "x:" + strconv.Itoa(i) }) }), ""},
		{"aliases 1,001", rec(func(r *Record) { r.Aliases = many(1001, func(i int) string { return "x:" + strconv.Itoa(i) }) }), "aliases: must hold at most 1,000 aliases"},
		{"alias display name", rec(func(r *Record) { r.Aliases = []string{"Dana"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias empty value", rec(func(r *Record) { r.Aliases = []string{"x:1", "person:"} }), "aliases.1: aliases must be namespaced identities"},
		{"alias upper-case scheme", rec(func(r *Record) { r.Aliases = []string{"Person:dana"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias digit first", rec(func(r *Record) { r.Aliases = []string{"1x:dana"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias space", rec(func(r *Record) { r.Aliases = []string{"person:dana example"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias format character", rec(func(r *Record) { r.Aliases = []string{"person:da\u200bna"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias control", rec(func(r *Record) { r.Aliases = []string{"person:da\u0085na"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias too long", rec(func(r *Record) { r.Aliases = []string{"x:" + repeat("a", 8191)} }), "aliases.0: aliases must be namespaced identities"},
		{"alias at the limit", rec(func(r *Record) { r.Aliases = []string{"x:" + repeat("a", 8190)} }), ""},
		{"alias scheme characters", rec(func(r *Record) {
			r.Aliases = []string{"a1+.-:x", "mailto:dana@example.test", "repo:github.com/Acme/X?q#f"}
		}), ""},
		{"alias with a link relation", rec(func(r *Record) { r.Aliases = []string{"bf://acme/people/dana?rel=owner"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias bad bf address", rec(func(r *Record) { r.Aliases = []string{"bf://acme/people/../x"} }), "aliases.0: aliases must be namespaced identities"},
		{"alias invalid UTF-8", rec(func(r *Record) { r.Aliases = []string{"x:\xff"} }), "aliases.0: must be valid Unicode, without invalid UTF-8 or lone surrogates"},
		// attributes
		{"updated number", rec(func(r *Record) { r.Attributes = map[string]any{"updated": json.Number("1")} }), "attributes.updated requires a timestamp string"},
		{"updated null", rec(func(r *Record) { r.Attributes = map[string]any{"updated": nil} }), "attributes.updated requires a timestamp string"},
		{"updated empty", rec(func(r *Record) { r.Attributes = map[string]any{"updated": ""} }), ""},
		{"updated not a timestamp", rec(func(r *Record) { r.Attributes = map[string]any{"updated": "yesterday"} }), "attributes.updated: expected an ISO 8601 timestamp"},
		{"updated without zone", rec(func(r *Record) { r.Attributes = map[string]any{"updated": "2026-10-01T17:00"} }), "attributes.updated: expected an ISO 8601 timestamp with a timezone"},
		{"observed bool", rec(func(r *Record) { r.Attributes = map[string]any{"observed": true} }), "attributes.observed requires a timestamp string"},
		{"observed empty", rec(func(r *Record) { r.Attributes = map[string]any{"observed": ""} }), "attributes.observed: expected an ISO 8601 timestamp"},
		{"partial string", rec(func(r *Record) { r.Attributes = map[string]any{"partial": "true"} }), "attributes.partial requires a boolean"},
		{"partial null", rec(func(r *Record) { r.Attributes = map[string]any{"partial": nil} }), "attributes.partial requires a boolean"},
		{"partial true", rec(func(r *Record) { r.Attributes = map[string]any{"partial": true} }), ""},
		{"attribute Go values", rec(func(r *Record) {
			r.Attributes = map[string]any{"i": 3, "i64": int64(-4), "f": 2.5, "s": []string{"a"}, "n": json.Number("1e3")}
		}), ""},
		{"attribute not JSON", rec(func(r *Record) { r.Attributes = map[string]any{"x": struct{}{}} }), "attributes: holds a value that JSON cannot represent"},
		{"attribute NaN", rec(func(r *Record) { r.Attributes = map[string]any{"x": []any{math.NaN()}} }), "attributes: holds a number that is not a finite JSON number"},
		{"attribute infinite number text", rec(func(r *Record) { r.Attributes = map[string]any{"x": json.Number("1e999")} }), "attributes: holds a number that is not a finite JSON number"},
		{"attribute malformed number", rec(func(r *Record) { r.Attributes = map[string]any{"x": json.Number("0x10")} }), "attributes: holds a number that is not a finite JSON number"},
		{"attribute empty number", rec(func(r *Record) { r.Attributes = map[string]any{"x": json.Number("")} }), "attributes: holds a number that is not a finite JSON number"},
		{"attribute invalid UTF-8 value", rec(func(r *Record) { r.Attributes = map[string]any{"x": map[string]any{"y": "\xff"}} }), "attributes: holds a string or key that is not valid Unicode"},
		{"attribute invalid UTF-8 key", rec(func(r *Record) { r.Attributes = map[string]any{"x": map[string]any{"\xff": 1}} }), "attributes: holds a string or key that is not valid Unicode"},
		{"attribute invalid UTF-8 top key", rec(func(r *Record) { r.Attributes = map[string]any{"\xff": 1} }), "attributes: holds a string or key that is not valid Unicode"},
		{"attribute cycle", rec(func(r *Record) { r.Attributes = cycle }), "attributes: JSON nests deeper than 1,000 levels"},
		// fields
		{"fields 1,000 names", rec(func(r *Record) { r.Fields = fieldMap(1000) }), ""},
		{"fields 1,001 names", rec(func(r *Record) { r.Fields = fieldMap(1001) }), "fields: must hold at most 1,000 names"},
		{"field name upper case", rec(func(r *Record) { r.Fields = map[string]any{"Author": "x"} }), "fields: field names must start with a lowercase letter and hold at most 64 lowercase letters, digits and hyphens"},
		{"field name 65 characters", rec(func(r *Record) { r.Fields = map[string]any{repeat("a", 65): "x"} }), "fields: field names must start with a lowercase letter and hold at most 64 lowercase letters, digits and hyphens"},
		{"field name 64 characters", rec(func(r *Record) { r.Fields = map[string]any{"a" + repeat("-9", 31) + "z": "x"} }), ""},
		{"field name empty", rec(func(r *Record) { r.Fields = map[string]any{"": "x"} }), "fields: field names must start with a lowercase letter and hold at most 64 lowercase letters, digits and hyphens"},
		{"field value not JSON", rec(func(r *Record) { r.Fields = map[string]any{"kind": func() {}} }), "fields.kind: holds a value that JSON cannot represent"},
		{"field values unchecked here", rec(func(r *Record) { r.Fields = map[string]any{"kind": nil, "n": []any{map[string]any{}}} }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r
			err := r.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			checkErr(t, err, tt.want)
		})
	}
}

func fieldMap(n int) map[string]any {
	m := map[string]any{}
	for i := range n {
		m["f"+strconv.Itoa(i)] = true
	}
	return m
}

func TestValidateEnvelopeSize(t *testing.T) {
	// id "a" (1) + title "t" (1) + {"x":"…"} (8 + n) + fields {} (2) = 12 + n bytes.
	at := func(n int) Record {
		return Record{ID: "a", Title: "t", Text: repeat("big text is fine ", 200_000),
			Attributes: map[string]any{"x": repeat("a", n)}}
	}
	r := at(maxEnvelopeSize - 12)
	if err := r.Validate(); err != nil {
		t.Fatalf("exactly 2 MiB: %v", err)
	}
	r = at(maxEnvelopeSize - 11)
	checkErr(t, r.Validate(), "fields other than text exceed 2 MiB; keep bulky content in text")

	// Every part counts: links, aliases, url, title and fields, in UTF-8 bytes.
	r = Record{ID: "a", Title: repeat("é", 4096), URL: repeat("é", 8192),
		Links:   many(1000, func(i int) string { return strconv.Itoa(i) + repeat("é", 700) }),
		Aliases: many(1000, func(i int) string { return "x:" + strconv.Itoa(i) + repeat("é", 400) })}
	checkErr(t, r.Validate(), "fields other than text exceed 2 MiB; keep bulky content in text")
	r = Record{ID: "a", Title: "t", Fields: map[string]any{"f": repeat("\x01", maxEnvelopeSize/6)}}
	checkErr(t, r.Validate(), "fields other than text exceed 2 MiB; keep bulky content in text")
}

func TestValidateNormalises(t *testing.T) {
	links := []string{"b", "a", "b"}
	attrs := map[string]any{"updated": "2026-10-01T19:00:00+02:00", "observed": "2026-10-02 08:15:03.4129999Z", "other": "2026-10-01T19:00:00+02:00"}
	r := Record{ID: "a", Title: "t", Time: "2026-09-15T14:00Z", Links: links,
		Aliases: []string{"x:b", "x:a", "BF://acme/people/d%61na", "x:b", "bf://acme/people/dana"}, Attributes: attrs}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	want := Record{ID: "a", Title: "t", Time: "2026-09-15T14:00:00.000000Z", Links: []string{"a", "b"},
		Aliases: []string{"bf://acme/people/dana", "x:a", "x:b"}, Attributes: map[string]any{
			"updated": "2026-10-01T17:00:00.000000Z", "observed": "2026-10-02T08:15:03.412999Z",
			"other": "2026-10-01T19:00:00+02:00", // only reserved keys are times
		}}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b", "a", "b"}, links); d != "" {
		t.Errorf("caller's links slice changed (-want +got):\n%s", d)
	}
	// A second pass changes nothing.
	again := r
	if err := again.Validate(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(r, again); d != "" {
		t.Errorf("Validate is not idempotent (-first +second):\n%s", d)
	}
}

func TestFieldErrorFormat(t *testing.T) {
	tests := []struct {
		e    fieldError
		want string
	}{
		{fieldError{"links.3", "must not be blank"}, "links.3: must not be blank"},
		{fieldError{"", "invalid JSON document"}, "invalid JSON document"},
		{fieldError{"attributes.partial", "attributes.partial requires a boolean"}, "attributes.partial requires a boolean"},
		{fieldError{"attributes", "attributes.partial requires a boolean"}, "attributes: attributes.partial requires a boolean"},
		{fieldError{"id", "id"}, "id: id"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.e, got, tt.want)
		}
	}
}
