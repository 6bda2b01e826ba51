// Package yamlx loads YAML the strict way bf needs for bf.yaml, the registry, eval suites
// and note front matter.
//
// It follows the YAML 1.2 core schema: only true and false are booleans, 017 is decimal, 1:30
// and dates stay strings. Anchors, aliases, duplicate keys, unknown tags and several documents
// are refused, and input is bounded (1 MiB, 32 levels, 20,000 events) so a hostile file costs
// little. Errors name the file and the dotted key path, never the offending value, because
// configuration files may hold secrets.
package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// Limits on untrusted YAML.
const (
	MaxBytes  = 1 << 20
	MaxDepth  = 32
	maxEvents = 20000
)

// Error is a YAML problem located by file, dotted key path and line.
type Error struct {
	File   string
	Path   string // dotted key path; list items are numbered from 0
	Line   int    // 1-based; 0 when unknown
	Reason string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	} else if e.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Reason)
	return b.String()
}

// Errorf builds an Error for a value found at path in file.
func Errorf(file, path, format string, args ...any) *Error {
	return &Error{File: file, Path: path, Reason: fmt.Sprintf(format, args...)}
}

// Join appends a key or a list index to a dotted path.
func Join(path string, key any) string {
	k := fmt.Sprint(key)
	if path == "" {
		return k
	}
	return path + "." + k
}

// Parse reads one YAML document into plain Go values: map[string]any, []any, string,
// int64 (or *big.Int beyond 64 bits), float64, bool and nil. An empty document is nil.
func Parse(file string, data []byte) (any, error) {
	if len(data) > MaxBytes {
		return nil, &Error{File: file, Reason: "file exceeds 1 MiB"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, &Error{File: file, Reason: syntaxReason(err, data)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, &Error{File: file, Line: extra.Line, Reason: "only one YAML document is allowed"}
	} else if !errors.Is(err, io.EOF) {
		return nil, &Error{File: file, Reason: syntaxReason(err, data)}
	}
	c := converter{file: file}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	v, err := c.value(doc.Content[0], "", 1)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// syntaxReason keeps the parser's position but drops any quoted input it may echo. A tab
// in a line's indentation, which YAML forbids and the parser reports obscurely (or a line
// early), is named with its line and column.
func syntaxReason(err error, data []byte) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	at := 0
	if m := lineRE().FindStringSubmatch(msg); m != nil {
		at, _ = strconv.Atoi(m[1])
	}
	// The parser may name the line before the tab; a tab further on is not the cause.
	if line, col := indentTab(data); line > 0 && (at == 0 || line <= at+1) {
		return fmt.Sprintf("invalid YAML at line %d, column %d: a tab indents the line; YAML indents with spaces only", line, col)
	}
	if m := lineRE().FindStringSubmatch(msg); m != nil {
		return "invalid YAML at line " + m[1]
	}
	return "invalid YAML"
}

var lineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

type converter struct {
	file   string
	events int
}

func (c *converter) fail(n *yaml.Node, path, reason string) error {
	return &Error{File: c.file, Path: path, Line: n.Line, Reason: reason}
}

var coreTags = map[string]bool{
	"!!str": true, "!!int": true, "!!float": true, "!!bool": true,
	"!!null": true, "!!map": true, "!!seq": true,
}

func (c *converter) value(n *yaml.Node, path string, depth int) (any, error) {
	c.events++
	if c.events > maxEvents {
		return nil, c.fail(n, path, "document exceeds 20,000 YAML events")
	}
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return nil, c.fail(n, path, "YAML anchors and aliases are not allowed")
	}
	explicit := n.Style&yaml.TaggedStyle != 0
	if explicit && !coreTags[n.Tag] {
		return nil, c.fail(n, path, "only the YAML core tags are allowed")
	}
	switch n.Kind {
	case yaml.MappingNode:
		if depth > MaxDepth {
			return nil, c.fail(n, path, "document nests deeper than 32 levels")
		}
		if explicit && n.Tag != "!!map" {
			return nil, c.fail(n, path, "tag does not match the mapping")
		}
		c.events++ // mapping end
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind != yaml.ScalarNode || kn.Anchor != "" {
				return nil, c.fail(kn, path, "mapping keys must be plain scalars")
			}
			c.events++
			if kn.Tag == "!!merge" {
				return nil, c.fail(kn, path, "YAML merge keys are not allowed")
			}
			key := kn.Value
			sub := Join(path, key)
			if _, dup := m[key]; dup {
				return nil, c.fail(kn, sub, "duplicate key")
			}
			v, err := c.value(vn, sub, depth+1)
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		return m, nil
	case yaml.SequenceNode:
		if depth > MaxDepth {
			return nil, c.fail(n, path, "document nests deeper than 32 levels")
		}
		if explicit && n.Tag != "!!seq" {
			return nil, c.fail(n, path, "tag does not match the list")
		}
		c.events++
		list := make([]any, 0, len(n.Content))
		for i, item := range n.Content {
			v, err := c.value(item, Join(path, i), depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case yaml.ScalarNode:
		return c.scalar(n, path, explicit)
	}
	return nil, c.fail(n, path, "unsupported YAML node")
}

func (c *converter) scalar(n *yaml.Node, path string, explicit bool) (any, error) {
	plain := n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
	if explicit {
		switch n.Tag {
		case "!!str":
			return n.Value, nil
		case "!!map", "!!seq":
			return nil, c.fail(n, path, "tag does not match the scalar")
		}
		v := resolve(n.Value)
		if tagOf(v) != n.Tag {
			return nil, c.fail(n, path, "value does not match its tag")
		}
		return v, nil
	}
	if !plain {
		return n.Value, nil
	}
	return resolve(n.Value), nil
}

func tagOf(v any) string {
	switch v.(type) {
	case nil:
		return "!!null"
	case bool:
		return "!!bool"
	case int64, *big.Int:
		return "!!int"
	case float64:
		return "!!float"
	}
	return "!!str"
}

var (
	intRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9]+$`) })
	octRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0o[0-7]+$`) })
	hexRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0x[0-9a-fA-F]+$`) })
	floatRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	})
)

// resolve applies the YAML 1.2 core schema to a plain scalar.
func resolve(s string) any {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	}
	switch {
	case intRE().MatchString(s):
		return integer(s, 10)
	case octRE().MatchString(s):
		return integer(s[2:], 8)
	case hexRE().MatchString(s):
		return integer(s[2:], 16)
	case floatRE().MatchString(s):
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return f
		}
	}
	return s
}

func integer(s string, base int) any {
	if i, err := strconv.ParseInt(s, base, 64); err == nil {
		return i
	}
	b, _ := new(big.Int).SetString(s, base)
	return b
}

// indentTab finds the first tab in the indentation of a line, before any other character of
// that line: its 1-based line and column (counted in characters), or 0, 0.
func indentTab(data []byte) (line, col int) {
	for i, l := range strings.Split(string(data), "\n") {
		for j, r := range []rune(l) {
			if r == '\t' {
				return i + 1, j + 1
			}
			if r != ' ' {
				break
			}
		}
	}
	return 0, 0
}
