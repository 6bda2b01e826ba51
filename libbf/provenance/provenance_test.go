package provenance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOfNote(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra map[string]any
		want  Stated
		check bool // CheckNote reports a problem
	}{
		{"no mark", nil, Stated{person, true}, false},
		{"other keys", map[string]any{"x": 1}, Stated{person, true}, false},
		{"unreviewed", map[string]any{Key: "unreviewed"}, Stated{agent, false}, false},
		{"reviewed", map[string]any{Key: "reviewed"}, Stated{agent, true}, false},
		// A misspelt or mistyped mark never raises trust.
		{"capitalised", map[string]any{Key: "Reviewed"}, Stated{agent, false}, true},
		{"spaces", map[string]any{Key: " reviewed"}, Stated{agent, false}, true},
		{"bool", map[string]any{Key: true}, Stated{agent, false}, true},
		{"list", map[string]any{Key: []any{"reviewed"}}, Stated{agent, false}, true},
		{"null", map[string]any{Key: nil}, Stated{agent, false}, true},
		{"empty", map[string]any{Key: ""}, Stated{agent, false}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := OfNote(tc.extra); got != tc.want {
				t.Errorf("OfNote = %+v, want %+v", got, tc.want)
			}
			if got := CheckNote(tc.extra) != ""; got != tc.check {
				t.Errorf("CheckNote reports %v, want %v", got, tc.check)
			}
		})
	}
}

func TestMark(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		unreviewed bool
		want       string
		err        bool
	}{
		{"add", "---\ntitle: A\n---\nbody review: x\n", true, "---\ntitle: A\nreview: unreviewed\n---\nbody review: x\n", false},
		{"clear", "---\ntitle: A\nreview: unreviewed\nfields:\n  review: \"2026-01-01\"\n---\nbody\n", false,
			"---\ntitle: A\nfields:\n  review: \"2026-01-01\"\n---\nbody\n", false},
		{"replace malformed block", "---\nreview:\n  - reviewed\n  - x\ntitle: A\n---\n", true, "---\ntitle: A\nreview: unreviewed\n---\n", false},
		{"quoted key", "---\n\"review\": reviewed\n---\n", true, "---\nreview: unreviewed\n---\n", false},
		{"crlf", "---\r\ntitle: A\r\n---\r\nbody\r\n", true, "---\r\ntitle: A\r\nreview: unreviewed\r\n---\r\nbody\r\n", false},
		{"body untouched", "---\ntitle: A\n---\nreview: unreviewed\n", false, "---\ntitle: A\n---\nreview: unreviewed\n", false},
		{"no front matter", "title: A\n", true, "", true},
		{"unclosed", "---\ntitle: A\n", true, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Mark([]byte(tc.in), tc.unreviewed)
			if (err != nil) != tc.err {
				t.Fatalf("Mark error %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, string(got)); !tc.err && diff != "" {
				t.Errorf("Mark (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLedger(t *testing.T) {
	a, b := []byte(`{"id":"a"}`), []byte(`{"id":"b"}`)
	l := Ledger{}
	l.Wrote("a.json", a)
	l.Wrote("b.json", []byte("old"))
	l.Wrote("b.json", b) // replaces the old digest
	l.Wrote("gone.json", a)
	l.Keep(func(n string) bool { return n != "gone.json" })
	text := l.Encode()
	want := "a.json " + digest(a) + "\nb.json " + digest(b) + "\n"
	if diff := cmp.Diff(want, string(text)); diff != "" {
		t.Fatalf("Encode (-want +got):\n%s", diff)
	}
	// A union merge of two machines' ledgers keeps both digests of b.json; conflict
	// markers and malformed lines confirm nothing.
	merged := string(text) + "<<<<<<< ours\nb.json " + digest([]byte("theirs")) + "\n=======\nc.json short\nd/e.json " + digest(a) + "\n"
	p := ParseLedger([]byte(merged))
	for _, tc := range []struct {
		name string
		data []byte
		want bool
	}{
		{"a.json", a, true},
		{"a.json", b, false}, // changed since
		{"b.json", b, true},
		{"b.json", []byte("theirs"), true},
		{"b.json", []byte("old"), false},
		{"c.json", a, false},
		{"gone.json", a, false},
		{"d/e.json", a, false},
	} {
		if got := p.Confirms(tc.name, tc.data); got != tc.want {
			t.Errorf("Confirms(%s, %q) = %v, want %v", tc.name, tc.data, got, tc.want)
		}
		if got := p.OfRecord(tc.name, tc.data); got.Trusted != tc.want || got.By != collection {
			t.Errorf("OfRecord(%s, %q) = %+v", tc.name, tc.data, got)
		}
	}
}

func FuzzParseLedger(f *testing.F) {
	f.Add([]byte("a.json " + digest(nil) + "\n"))
	f.Add([]byte("x y\n\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l := ParseLedger(data)
		// What a ledger encodes, it reads back as the same set.
		if diff := cmp.Diff(l, ParseLedger(l.Encode())); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

func FuzzMark(f *testing.F) {
	f.Add([]byte("---\ntitle: A\nreview: x\n---\nbody\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, unreviewed bool) {
		out, err := Mark(data, unreviewed)
		if err != nil {
			return
		}
		// Marking twice changes nothing more, and the text after the front matter is kept.
		again, err := Mark(out, unreviewed)
		if err != nil || string(again) != string(out) {
			t.Fatalf("Mark is not idempotent: %q then %q (%v)", out, again, err)
		}
	})
}
