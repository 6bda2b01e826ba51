package reply

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// Listed field limits: a value's characters, and the JSON of an item's fields.
const (
	maxFact  = 200
	maxFacts = 2 << 10
)

// ListedFields returns the fields a listing shows from an item's stored fields JSON (the
// cache's items.fields): the fields single reports as declared single-value fields, by name,
// keeping strings of at most maxFact characters, numbers and booleans, and stopping before
// their JSON would pass maxFacts bytes. It returns nil when none is kept.
func ListedFields(raw string, single func(name string) bool) map[string]json.RawMessage {
	if raw == "" || single == nil {
		return nil
	}
	var all map[string]json.RawMessage
	if json.Unmarshal([]byte(raw), &all) != nil {
		return nil
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]json.RawMessage{}
	size := 2 // {}
	for _, n := range names {
		if !single(n) {
			continue
		}
		v := all[n]
		var s string
		switch {
		case json.Unmarshal(v, &s) == nil:
			if utf8.RuneCountInString(s) > maxFact {
				continue
			}
		case strings.HasPrefix(string(v), "[") || strings.HasPrefix(string(v), "{") || string(v) == "null":
			continue
		}
		b, err := Marshal(map[string]json.RawMessage{n: v})
		if err != nil {
			continue
		}
		add := len(b) - 2
		if len(out) > 0 {
			add++ // the comma
		}
		if size+add > maxFacts {
			break
		}
		size += add
		out[n] = v
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
