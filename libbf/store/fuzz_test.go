package store

import (
	"bytes"
	"errors"
	"testing"

	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/google/go-cmp/cmp"
)

func FuzzParseManifest(f *testing.F) {
	a, b := fn("a"), fn("b")
	for _, s := range []string{
		`{"changes":[],"complete":false,"source":"mail","version":1}`,
		`{"changes":[{"existed":true,"name":"` + a + `"},{"existed":false,"name":"` + b + `"}],"complete":true,"source":"mail","version":1}`,
		`{"version":1,"source":"mail","complete":true,"changes":[{"name":"` + a + `","existed":true}]}` + "\n",
		`{"changes":[{"existed":true,"name":"` + a + `"},{"existed":true,"name":"` + a + `"}],"complete":true,"source":"mail","version":1}`,
		`{"changes":null,"complete":false,"source":"mail","version":1}`,
		`{"changes":[],"complete":false,"source":"mail","version":1,"version":1}`,
		`{"changes":[],"complete":false,"source":"m\u0061il","version":1e0}`,
		`{"changes":[],"complete":false,"source":"mail","version":1}]`,
		`[{"changes":[]}]`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := parseManifest(data)
		if err != nil {
			if m != nil || !errors.Is(err, errManifest) {
				t.Fatalf("failure %v with manifest %v", err, m)
			}
			return
		}
		if m.Version != 1 || !ref.ValidName(m.Source) || m.Changes == nil || len(m.Changes) > maxChanges {
			t.Fatalf("accepted %+v", m)
		}
		seen := map[string]bool{}
		for _, c := range m.Changes {
			if !record.ValidFileName(c.Name) || seen[c.Name] {
				t.Fatalf("accepted change %+v", c)
			}
			seen[c.Name] = true
		}
		// What was accepted survives the round trip through the stored form.
		enc := m.encode()
		again, err := parseManifest(enc)
		if err != nil {
			t.Fatalf("own encoding %s refused: %v", enc, err)
		}
		if diff := cmp.Diff(m, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		if !bytes.Equal(enc, again.encode()) {
			t.Fatalf("encoding is not stable: %s", enc)
		}
	})
}
