package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Output formats of bf search and bf read. JSON is the default and the only format
// scripts and MCP see; md renders the same reply for a person at a terminal; refs prints
// one ref per line for xargs.
const (
	formatJSON = "json"
	formatMD   = "md"
	formatRefs = "refs"
)

// Format is the --format flag.
type Format string

func (f *Format) String() string { return string(*f) }

// Set accepts json, md or refs.
func (f *Format) Set(s string) error {
	switch s {
	case formatJSON, formatMD, formatRefs:
		*f = Format(s)
		return nil
	}
	return fmt.Errorf("use json, md or refs")
}

// FormatFlag adds --format to a command's flags.
func FormatFlag(fs *flag.FlagSet) *Format {
	f := Format(formatJSON)
	fs.Var(&f, "format", "print the reply as json (the default), md (Markdown for reading) or refs (one ref per line)")
	return &f
}

// WriteReply prints a reply's JSON document b (as reply.Encode made it) in format f.
func WriteReply(w io.Writer, f Format, b []byte) error {
	var doc map[string]any
	if f != formatJSON {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&doc); err != nil {
			return err
		}
	}
	var out string
	switch f {
	case formatMD:
		out = markdown(doc)
	case formatRefs:
		out = refs(doc)
	default:
		out = string(b) + "\n"
	}
	_, err := io.WriteString(w, out)
	return err
}

// refs lists the refs of a reply's items, or the reply's own ref, one per line.
func refs(doc map[string]any) string {
	var b strings.Builder
	if items, ok := doc["items"].([]any); ok {
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				if r, ok := m["ref"].(string); ok {
					b.WriteString(safeLine(r) + "\n")
				}
			}
		}
		return b.String()
	}
	if r, ok := doc["ref"].(string); ok {
		b.WriteString(safeLine(r) + "\n")
	}
	return b.String()
}

// markdown renders a reply for reading: its title and ref, its scalar fields, its text,
// then each list as a section of items (title, ref, details, excerpt), continuation and
// notice last.
func markdown(doc map[string]any) string {
	var b strings.Builder
	title, ref := str(doc["title"]), str(doc["ref"])
	switch {
	case title != "":
		fmt.Fprintf(&b, "# %s\n\n", safeLine(title))
		if ref != "" {
			fmt.Fprintf(&b, "`%s`\n\n", safeLine(ref))
		}
	case ref != "":
		fmt.Fprintf(&b, "# %s\n\n", safeLine(ref))
	case str(doc["page"]) != "":
		fmt.Fprintf(&b, "# %s\n\n", safeLine(str(doc["page"])))
	}
	keys := slices.Sorted(maps.Keys(doc))
	skip := map[string]bool{"title": true, "ref": true, "page": true, "text": true, "notice": true, "next_offset": true}
	details := false
	for _, k := range keys {
		if v := doc[k]; !skip[k] && isScalarish(v) {
			fmt.Fprintf(&b, "- %s: %s\n", k, safeLine(inline(v)))
			details = true
		}
	}
	if details {
		b.WriteString("\n")
	}
	if text := str(doc["text"]); text != "" {
		b.WriteString(safeText(strings.TrimRight(text, "\n")) + "\n\n")
	}
	for _, k := range keys {
		v := doc[k]
		if skip[k] || isScalarish(v) {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", heading(k))
		section(&b, v, 3)
	}
	if n, ok := doc["next_offset"]; ok {
		fmt.Fprintf(&b, "More: repeat with --offset %s\n\n", inline(n))
	}
	if notice := str(doc["notice"]); notice != "" {
		fmt.Fprintf(&b, "_%s_\n", safeLine(notice))
	}
	return b.String()
}

// section renders a list or object under a heading of depth level.
func section(b *strings.Builder, v any, level int) {
	switch v := v.(type) {
	case []any:
		grouped := false
		for _, el := range v {
			m, ok := el.(map[string]any)
			if !ok {
				fmt.Fprintf(b, "- %s\n", safeLine(inline(el)))
				grouped = false
				continue
			}
			if items, ok := m["items"].([]any); ok {
				// A group of items, such as the backlinks of one relation.
				label := first(m, "relation", "title", "ref", "source", "brain")
				if t, ok := m["total"]; ok {
					label += fmt.Sprintf(" (%s)", inline(t))
				}
				fmt.Fprintf(b, "%s %s\n\n", strings.Repeat("#", min(level, 6)), safeLine(label))
				section(b, items, level+1)
				grouped = true
				continue
			}
			item(b, m)
			grouped = false
		}
		if !grouped {
			b.WriteString("\n")
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			fmt.Fprintf(b, "- %s: %s\n", safeLine(k), safeLine(inline(v[k])))
		}
		b.WriteString("\n")
	}
}

// item renders one item as a list entry: bold title, ref in code, details, then the
// excerpt indented beneath.
func item(b *strings.Builder, m map[string]any) {
	label := first(m, "title", "target_title")
	ref := first(m, "ref", "target_ref", "target")
	used := map[string]bool{"title": true, "target_title": true, "ref": true, "target_ref": true, "target": true, "excerpt": true, "text": true}
	var line []string
	if label != "" {
		line = append(line, "**"+safeLine(label)+"**")
	}
	if ref != "" {
		line = append(line, "`"+safeLine(ref)+"`")
	}
	var details []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !used[k] {
			details = append(details, k+": "+inline(m[k]))
		}
	}
	entry := strings.Join(line, " — ")
	if len(details) > 0 {
		if entry != "" {
			entry += " "
		}
		entry += "(" + safeLine(strings.Join(details, "; ")) + ")"
	}
	fmt.Fprintf(b, "- %s\n", entry)
	for _, k := range []string{"excerpt", "text"} {
		if s := str(m[k]); s != "" {
			for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
				fmt.Fprintf(b, "  > %s\n", safeLine(l))
			}
		}
	}
}

// inline writes a value on one line: strings as they are, lists joined, objects as
// key value pairs.
func inline(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "null"
	case []any:
		parts := make([]string, len(v))
		for i, el := range v {
			parts[i] = inline(el)
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(v)) {
			parts = append(parts, k+" "+inline(v[k]))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// isScalarish reports a value shown on one detail line: a scalar, or a list of scalars.
func isScalarish(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		return false
	case []any:
		return !slices.ContainsFunc(v, func(el any) bool {
			switch el.(type) {
			case map[string]any, []any:
				return true
			}
			return false
		})
	}
	return true
}

func first(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m[k]); s != "" {
			return s
		}
	}
	return ""
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// heading names a section after its key: "backlinks" is "Backlinks".
func heading(k string) string {
	k = strings.ReplaceAll(k, "_", " ")
	if k == "" {
		return k
	}
	return strings.ToUpper(k[:1]) + k[1:]
}

// safeLine escapes control and format characters, newlines included.
func safeLine(s string) string { return Escape(s) }

// safeText escapes control and format characters but keeps line breaks and tabs.
func safeText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = Escape(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}
