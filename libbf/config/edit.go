package config

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/bfgo/bf/libbf/yamlx"
)

// AddFields returns bf.yaml's text (src) with the declarations of fields added. It edits
// the text rather than print the configuration anew, so every comment, blank line and quoting choice of the
// user's file stays as it was: the new entries are lines inserted into the existing block,
// or a new block at the end. The result is parsed again before it is returned.
func AddFields(src []byte, fields map[string]*Field) ([]byte, error) {
	m := newMap()
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		add(m, name, fieldNode(name, fields[name]))
	}
	if len(m.Content) == 0 {
		return src, nil
	}
	return insert(src, []string{"fields"}, m)
}

// AddScopes returns bf.yaml's text (src) with scopes added to memory.scopes, as AddFields
// does for fields.
func AddScopes(src []byte, scopes []string) ([]byte, error) {
	if len(scopes) == 0 {
		return src, nil
	}
	list := strList(scopes)
	list.Style = 0 // a block sequence, as people write lists in bf.yaml
	return insert(src, []string{"memory", "scopes"}, list)
}

// insert adds the entries of addition (a mapping's pairs or a sequence's items) to the
// block at path, creating the missing keys of path.
func insert(src []byte, path []string, addition *yaml.Node) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", FileName, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: expected a mapping at the top", FileName)
	}
	lines := splitLines(src)
	parent := doc.Content[0]
	for depth, key := range path {
		if parent.Style&yaml.FlowStyle != 0 {
			return nil, flowError(path[:depth])
		}
		k, v := lookup(parent, key)
		if k == nil {
			// Missing from here down: a new block of the remaining keys.
			block := addition
			for i := len(path) - 1; i > depth; i-- {
				m := newMap()
				add(m, path[i], block)
				block = m
			}
			m := newMap()
			add(m, key, block)
			if depth == 0 {
				return finish(appendBlock(lines, render(m, 0)))
			}
			// A new key of an existing block mapping: after the parent's key line, at the
			// column of the parent's entries.
			return finish(insertAfter(lines, parentKeyLine(parent), render(m, parent.Column-1)))
		}
		if depth < len(path)-1 {
			if v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle != 0 {
				return nil, flowError(path[:depth+1])
			}
			parent = v
			continue
		}
		switch {
		case v.Kind == addition.Kind && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0:
			// A block with entries: the new ones go first, at the entries' column.
			return finish(insertAfter(lines, k.Line, render(addition, v.Column-1)))
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "":
			// An empty key (`fields:`): its entries, indented under it.
			return finish(insertAfter(lines, k.Line, render(addition, k.Column+1)))
		default:
			return nil, flowError(path)
		}
	}
	return nil, fmt.Errorf("%s: nothing to add", FileName)
}

// parentKeyLine is the line of the key whose value is the mapping m: the line before m's
// first entry.
func parentKeyLine(m *yaml.Node) int { return m.Content[0].Line - 1 }

func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

func flowError(path []string) error {
	return fmt.Errorf("%s: %s is not a block of its own (it is written inline); write it as an indented block so bf can add to it", FileName, strings.Join(path, "."))
}

// render prints n as YAML lines indented by indent spaces.
func render(n *yaml.Node, indent int) []string {
	var buf bytes.Buffer
	yamlx.Encode(&buf, n) // a node built here always encodes
	out := splitLines(buf.Bytes())
	pad := strings.Repeat(" ", indent)
	for i, l := range out {
		out[i] = pad + l
	}
	return out
}

// splitLines splits text into lines without their newlines.
func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// insertAfter puts block after line (1-based).
func insertAfter(lines []string, line int, block []string) []string {
	out := make([]string, 0, len(lines)+len(block))
	out = append(out, lines[:line]...)
	out = append(out, block...)
	return append(out, lines[line:]...)
}

func appendBlock(lines, block []string) []string { return append(lines, block...) }

func finish(lines []string) ([]byte, error) {
	data := []byte(strings.Join(lines, "\n") + "\n")
	if _, err := Parse(FileName, data); err != nil {
		return nil, err
	}
	return data, nil
}
