package vault

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/timestamp"
	"github.com/bfgo/bf/libbf/yamlx"
)

// matter is a note's front matter on its way into the brain: the values the import sets,
// then the source's other keys in their order.
type matter struct {
	title   string
	typ     string
	updated string
	tags    []string
	aliases []string
	kept    []*yaml.Node // key, value, key, value…
}

func (m *matter) has(key string) bool {
	for i := 0; i < len(m.kept); i += 2 {
		if m.kept[i].Value == key {
			return true
		}
	}
	return false
}

// Keys the import reads itself rather than keeping as written.
var (
	aliasKeys   = []string{"aliases", "alias"}
	tagKeys     = []string{"tags", "tag"}
	updatedKeys = []string{"updated", "modified", "last_modified", "date_modified"}
)

// matter reads the source front matter raw (the YAML between the fences, maybe empty).
func (imp *importer) matter(f *file, raw string, r *Report) *matter {
	m := &matter{typ: imp.typeOf(f.src)}
	var doc yaml.Node
	var pairs []*yaml.Node
	if strings.TrimSpace(raw) != "" {
		if err := yaml.Unmarshal([]byte(raw), &doc); err != nil {
			r.drop(f.src, "frontmatter", "the front matter is not YAML, so none of it was kept")
		} else if len(doc.Content) == 1 && doc.Content[0].Kind == yaml.MappingNode {
			pairs = doc.Content[0].Content
		} else if len(doc.Content) > 0 {
			r.drop(f.src, "frontmatter", "the front matter is not a YAML mapping, so none of it was kept")
		}
	}
	seen := map[string]bool{}
	bad := imp.badKeys[f.src]
	var updatedFrom string
	for i := 0; i+1 < len(pairs); i += 2 {
		k, v := pairs[i], pairs[i+1]
		if k.Kind != yaml.ScalarNode {
			r.drop(f.src, "frontmatter", "a key that is not text")
			continue
		}
		key := k.Value
		if seen[key] {
			r.drop(f.src, key, "written twice; the first value is kept")
			continue
		}
		seen[key] = true
		if why, ok := bad[key]; ok {
			r.drop(f.src, key, why)
			continue
		}
		switch {
		case slices.Contains(aliasKeys, key):
			m.aliases = append(m.aliases, scalars(v, false)...)
			continue
		case slices.Contains(tagKeys, key):
			for _, t := range scalars(v, true) {
				m.addTag(t, f.src, r)
			}
			continue
		case key == "title":
			if v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) != "" && v.Tag != "!!null" {
				m.title = v.Value
			}
			continue
		case key == "type":
			if v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) != "" && len([]rune(v.Value)) <= note.MaxWord && v.Tag != "!!null" {
				m.typ = v.Value
			} else {
				r.drop(f.src, key, "a type is 1 to 128 characters of text; the folder's type is used")
			}
			continue
		case key == "updated" || (slices.Contains(updatedKeys, key) && m.updated == ""):
			if d, ok := dayOf(v); ok {
				m.updated, updatedFrom = d, key
			} else if key == "updated" {
				r.drop(f.src, key, "not a date; the file's modification day is used")
			}
			if key == "updated" {
				continue
			}
		}
		if _, declared := imp.t.cfg.Fields[key]; declared {
			r.drop(f.src, key, "the brain declares "+key+" as a field, whose values follow its declaration; the source value was left out")
			continue
		}
		if !loads(k, v) {
			r.drop(f.src, key, "uses YAML the format refuses (anchors, aliases, custom tags or duplicate keys)")
			continue
		}
		m.kept = append(m.kept, k, v)
	}
	if m.updated == "" {
		m.updated = day(f.mtime)
	} else if updatedFrom != "updated" {
		r.change(f.src, "updated taken from %s", updatedFrom)
	}
	if len(m.aliases) > 0 {
		r.change(f.src, "aliases %s kept as an \"Also known as\" line under the title: the format's aliases are identities, not names", quoteList(m.aliases))
	}
	return m
}

// scalars lists the text values of a scalar or a list of scalars; split also splits a
// scalar at commas and spaces, as Obsidian reads a tags string.
func scalars(v *yaml.Node, split bool) []string {
	var out []string
	add := func(s string) {
		if split {
			out = append(out, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })...)
			return
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag != "!!null" {
			add(v.Value)
		}
	case yaml.SequenceNode:
		for _, c := range v.Content {
			if c.Kind == yaml.ScalarNode && c.Tag != "!!null" {
				add(c.Value)
			}
		}
	}
	return out
}

// dayOf reads a YYYY-MM-DD day from a date or a timestamp.
func dayOf(v *yaml.Node) (string, bool) {
	if v.Kind != yaml.ScalarNode || len(v.Value) < 10 {
		return "", false
	}
	s := v.Value[:10]
	if _, err := timestamp.ParseDay(s, time.UTC); err != nil {
		return "", false
	}
	if len(v.Value) > 10 && !strings.ContainsRune("T t", rune(v.Value[10])) {
		return "", false
	}
	return s, true
}

// loads reports whether one key and value read under the format's strict YAML rules.
func loads(k, v *yaml.Node) bool {
	b, err := encode([]*yaml.Node{k, v})
	if err != nil {
		return false
	}
	_, err = yamlx.Parse("", b)
	return err == nil
}

// addTag adds a front matter or inline tag. Nested tags keep their levels with '.' in
// place of '/', which a tag label cannot hold.
func (m *matter) addTag(label, src string, r *Report) {
	label = strings.Trim(strings.TrimPrefix(strings.TrimSpace(label), "#"), "/")
	if label == "" {
		return
	}
	t := strings.ReplaceAll(label, "/", ".")
	if err := ref.ValidTag(t); err != nil {
		r.drop(src, "tags", fmt.Sprintf("tag %q: %v", label, err))
		return
	}
	if slices.Contains(m.tags, t) {
		return
	}
	if len(m.tags) >= note.MaxItems {
		r.drop(src, "tags", fmt.Sprintf("tag %q: a note holds at most %d tags", label, note.MaxItems))
		return
	}
	m.tags = append(m.tags, t)
}

// render writes the front matter block, fences included.
func (m *matter) render() string {
	var pairs []*yaml.Node
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	if m.title != "" {
		pairs = append(pairs, str("title"), str(m.title))
	}
	pairs = append(pairs, str("type"), str(m.typ), str("updated"), str(m.updated))
	if len(m.tags) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, t := range m.tags {
			seq.Content = append(seq.Content, str(t))
		}
		pairs = append(pairs, str("tags"), seq)
	}
	pairs = append(pairs, m.kept...)
	b, err := encode(pairs)
	if err != nil {
		// Every kept pair encoded alone in loads; only a bug gets here.
		panic(err)
	}
	s := "---\n" + string(b) + "---\n"
	return s
}

func encode(pairs []*yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	if err := yamlx.Encode(&buf, &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: pairs}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func quoteList(items []string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func sortEdits(edits []edit) {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
}

// withAliases writes a note's Obsidian aliases as an "Also known as" line under its H1
// (or at the top of the body), where search finds them as words and readers see them.
func withAliases(body string, aliases []string) string {
	if len(aliases) == 0 {
		return body
	}
	line := "Also known as: " + strings.Join(aliases, ", ") + "\n"
	pos := 0
	for pos < len(body) {
		end := strings.IndexByte(body[pos:], '\n')
		if end < 0 {
			end = len(body) - pos
		}
		l := body[pos : pos+end]
		if strings.TrimSpace(l) == "" {
			pos += end + 1
			continue
		}
		if strings.HasPrefix(l, "# ") || l == "#" {
			at := min(pos+end+1, len(body))
			sep := ""
			if at == len(body) && !strings.HasSuffix(body, "\n") {
				sep = "\n"
			}
			rest := body[at:]
			if rest != "" && !strings.HasPrefix(rest, "\n") {
				line += "\n"
			}
			return body[:at] + sep + "\n" + line + rest
		}
		break
	}
	return line + "\n" + body
}
