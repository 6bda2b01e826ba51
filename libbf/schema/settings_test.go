package schema_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/schema"
)

// scalarNode is what brain.schema.json says of one scalar setting, its $ref followed.
type scalarNode struct {
	Types    []string // without null
	Min, Max *float64
	Enum     []string // without null
	Default  any
	Doc      string
}

// schemaScalars walks the brain schema and returns every node that bounds, defaults or
// enumerates a scalar, by its config.Setting path (names and list indexes as *).
func schemaScalars(t *testing.T) map[string][]scalarNode {
	t.Helper()
	data, err := schema.Get(schema.KindBrain)
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	defs, _ := root["$defs"].(map[string]any)
	// resolve follows $ref, the referring node's own keys winning.
	var resolve func(n map[string]any) map[string]any
	resolve = func(n map[string]any) map[string]any {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		target, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		if target == nil {
			t.Fatalf("unresolved $ref %s", ref)
		}
		out := maps.Clone(resolve(target))
		for k, v := range n {
			if k != "$ref" {
				out[k] = v
			}
		}
		return out
	}
	found := map[string][]scalarNode{}
	var walk func(raw any, path string, depth int)
	walk = func(raw any, path string, depth int) {
		n, ok := raw.(map[string]any)
		if !ok || depth > 12 {
			return
		}
		n = resolve(n)
		if s, ok := scalar(n); ok {
			found[path] = append(found[path], s)
		}
		join := func(k string) string {
			if path == "" {
				return k
			}
			return path + "." + k
		}
		if props, ok := n["properties"].(map[string]any); ok {
			for _, k := range slices.Sorted(maps.Keys(props)) {
				walk(props[k], join(k), depth+1)
			}
		}
		walk(n["additionalProperties"], join("*"), depth+1)
		walk(n["items"], join("*"), depth+1)
		for _, key := range []string{"anyOf", "oneOf", "allOf"} {
			list, _ := n[key].([]any)
			for _, sub := range list {
				walk(sub, path, depth+1)
			}
		}
	}
	walk(root, "", 0)
	return found
}

// scalar reads a node that types a scalar and bounds, defaults or enumerates it.
func scalar(n map[string]any) (scalarNode, bool) {
	var s scalarNode
	switch ty := n["type"].(type) {
	case string:
		s.Types = []string{ty}
	case []any:
		for _, x := range ty {
			if x != "null" {
				s.Types = append(s.Types, fmt.Sprint(x))
			}
		}
	}
	if slices.Contains(s.Types, "object") || slices.Contains(s.Types, "array") {
		return s, false
	}
	if v, ok := n["minimum"].(float64); ok {
		s.Min = &v
	}
	if v, ok := n["maximum"].(float64); ok {
		s.Max = &v
	}
	enum, hasEnum := n["enum"].([]any)
	for _, x := range enum {
		if x != nil {
			s.Enum = append(s.Enum, fmt.Sprint(x))
		}
	}
	s.Default = n["default"]
	s.Doc, _ = n["description"].(string)
	return s, s.Min != nil || s.Max != nil || hasEnum || s.Default != nil
}

// described is what a config.Setting says, in the schema's terms.
func described(st config.Setting) scalarNode {
	s := scalarNode{Doc: st.Doc}
	switch st.Type {
	case config.SettingInteger, config.SettingNumber:
		s.Types = []string{st.Type}
		s.Min, s.Max = &st.Min, &st.Max
	case config.SettingWord:
		s.Enum = st.Words
	case config.SettingBool:
		s.Types = []string{st.Type}
	}
	switch d := st.Default.(type) {
	case int64:
		s.Default = float64(d)
	case nil:
	default:
		s.Default = d
	}
	return s
}

// TestSettingsMatchTheSchema holds brain.schema.json and config.Settings, the one
// description of bf.yaml's scalar settings that decoding and Marshal use, to each other:
// every described setting has its type, range, words, default and doc in the schema, and
// every scalar the schema bounds, defaults or enumerates is described.
func TestSettingsMatchTheSchema(t *testing.T) {
	inSchema := schemaScalars(t)
	paths := map[string]bool{}
	for _, st := range config.Settings {
		if paths[st.Path] {
			t.Errorf("%s is described twice", st.Path)
		}
		paths[st.Path] = true
		nodes := inSchema[st.Path]
		if len(nodes) == 0 {
			t.Errorf("%s: described in config.Settings, not in brain.schema.json", st.Path)
			continue
		}
		for _, n := range nodes {
			if diff := cmp.Diff(described(st), n); diff != "" {
				t.Errorf("%s: config.Settings and brain.schema.json differ (-settings +schema):\n%s", st.Path, diff)
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(inSchema)) {
		if !paths[p] && !undescribed[p] {
			t.Errorf("%s: brain.schema.json bounds, defaults or enumerates it; describe it in config.Settings", p)
		}
	}
}

// undescribed are the schema's bounded scalars that are no bf.yaml setting of their own.
var undescribed = map[string]bool{
	"version": true, // checked first, before any setting (config.Version)
	// true, false or a list of run kinds (assistants.*.idempotent.*): config.Idempotent.
	"assistants.*.idempotent": true,
}
