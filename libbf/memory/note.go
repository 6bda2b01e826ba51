package memory

import (
	"bytes"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
	"github.com/bfgo/bf/libbf/yamlx"
)

// Field names of a memory note, declared in bf.yaml (DeclareFields).
const (
	fieldImportance = "importance"
	fieldConfidence = "confidence"
	fieldTrust      = "trust"
	fieldScope      = "scope"
	fieldPinned     = "pinned"
	fieldReview     = "review"
	fieldCommit     = "commit"
	fieldProject    = "project"
	fieldSource     = "source"
	fieldRef        = "ref"
	fieldSaved      = "saved"
	fieldSupersedes = "supersedes"
	fieldDistinct   = "distinct-from"
)

var (
	scopeLevel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`) })
	dayShape   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`) })
	commitHex  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,64}$`) })
)

// checkScope reports why s is not a scope: levels of lowercase letters, digits, - and _
// joined by ':'; global stands alone.
func checkScope(s string) error {
	if s == DefaultScope {
		return nil
	}
	if len(s) > 256 {
		return fmt.Errorf("expected at most 256 characters")
	}
	parts := strings.Split(s, ":")
	for _, p := range parts {
		if !scopeLevel().MatchString(p) {
			return fmt.Errorf("expected levels of lowercase letters, digits, - and _ joined by : such as channel:deploy:prod")
		}
		if p == DefaultScope {
			return fmt.Errorf("global is the top level; write it alone")
		}
	}
	return nil
}

// checkDay reports whether s is a real YYYY-MM-DD day.
func checkDay(s string) bool {
	if !dayShape().MatchString(s) {
		return false
	}
	_, err := parseDay(s)
	return err == nil
}

// IsMemoryPath reports whether a brain-relative path is a memory note.
func IsMemoryPath(p string) bool {
	if !strings.HasPrefix(p, Folder+"/") || !strings.HasSuffix(p, ".md") {
		return false
	}
	rest := strings.TrimPrefix(p, Folder+"/")
	if strings.Contains(rest, "/") {
		return false
	}
	return rest != "index.md" && rest != "log.md"
}

// FromNote reads a memory from its parsed note and raw bytes. Problems name the field
// and the fix; a memory with problems is skipped by recall and reported by validate.
func FromNote(n *note.Note, data []byte) (*Memory, []note.Problem) {
	var probs []note.Problem
	bad := func(field, format string, args ...any) {
		probs = append(probs, note.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	m := &Memory{Ref: n.Path, Title: n.Meta.Title, Type: n.Meta.Type, Unreviewed: !provenance.OfNote(n.Meta.Extra).Trusted}

	if strings.TrimSpace(m.Title) == "" {
		bad("title", "a memory needs a nonblank title in its front matter")
	}
	if _, ok := types[m.Type]; !ok {
		bad("type", "expected a memory type: %s", strings.Join(typeNames(), ", "))
	}
	m.Body = body(data, n.BodyLine)
	f := n.Meta.Fields
	for _, nf := range noteFields {
		v, present := f[nf.name]
		nf.read(m, n, v, present, func(sub, message string) { bad("fields."+nf.name+sub, "%s", message) })
	}
	for _, v := range n.Meta.Verified {
		by, _ := v["by"].(string)
		at, _ := v["at"].(string)
		m.Verified = append(m.Verified, Check{By: by, At: at})
	}
	if m.Confidence == confirmed && m.Source == "" && m.SourceRef == "" {
		bad("fields.confidence", "confirmed needs fields.source or fields.ref")
	}
	return m, probs
}

// addressRef returns the note path of a memory's bf:// address.
func addressRef(s string) (string, bool) {
	a, err := ref.ParseAddress(s)
	if err != nil || !IsMemoryPath(a.Path) {
		return "", false
	}
	return a.Path, true
}

func asInt(v any) (int, bool) {
	switch t := v.(type) {
	case int:
		return t, true
	case int64:
		return int(t), true
	case *big.Int:
		return 0, false
	}
	return 0, false
}

// body is the note's text after the front matter, trimmed.
func body(data []byte, bodyLine int) string {
	lines := strings.SplitAfter(string(data), "\n")
	if bodyLine-1 > len(lines) {
		return ""
	}
	return strings.TrimSpace(strings.Join(lines[bodyLine-1:], ""))
}

// Render writes a memory as its note file. brainName makes the supersedes addresses.
func Render(m *Memory, brainName string) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(parent *yaml.Node, k string, v *yaml.Node) {
		parent.Content = append(parent.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, v)
	}
	add(root, "type", str(m.Type))
	add(root, "title", str(m.Title))
	add(root, "updated", str(timestamp.Day(m.Saved.UTC())))
	if m.Unreviewed {
		add(root, provenance.Key, str(provenance.Unreviewed))
	}
	fields := &yaml.Node{Kind: yaml.MappingNode}
	add(fields, fieldScope, str(m.Scope))
	add(fields, fieldImportance, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(m.Importance)})
	add(fields, fieldConfidence, str(m.Confidence))
	add(fields, fieldTrust, str(m.Trust))
	add(fields, fieldSaved, str(timestamp.Canonical(m.Saved)))
	if m.Pinned {
		add(fields, fieldPinned, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	if m.Review != "" {
		add(fields, fieldReview, str(m.Review))
	}
	if m.Commit != "" {
		add(fields, fieldCommit, str(m.Commit))
	}
	if m.Project != "" {
		add(fields, fieldProject, str(m.Project))
	}
	if m.Source != "" {
		add(fields, fieldSource, str(m.Source))
	}
	if m.SourceRef != "" {
		add(fields, fieldRef, str(m.SourceRef))
	}
	for _, refs := range []struct {
		field string
		refs  []string
	}{{fieldSupersedes, m.Supersedes}, {fieldDistinct, m.DistinctFrom}} {
		if len(refs.refs) == 0 {
			continue
		}
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, r := range refs.refs {
			list.Content = append(list.Content, str("bf://"+brainName+"/"+r))
		}
		add(fields, refs.field, list)
	}
	add(root, "fields", fields)
	if len(m.Verified) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode}
		for _, v := range m.Verified {
			item := &yaml.Node{Kind: yaml.MappingNode}
			add(item, "by", str(v.By))
			add(item, "at", str(v.At))
			list.Content = append(list.Content, item)
		}
		add(root, "verified", list)
	}
	var buf bytes.Buffer
	buf.WriteString("---\n")
	if err := yamlx.Encode(&buf, root); err != nil {
		return nil, err
	}
	buf.WriteString("---\n")
	if m.Body != "" {
		buf.WriteString(strings.TrimSpace(m.Body) + "\n")
	}
	return buf.Bytes(), nil
}

// str is a string scalar, always quoted so YAML 1.1 readers see the same text.
func str(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
}
