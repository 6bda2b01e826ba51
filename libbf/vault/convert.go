package vault

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/obsidian"
	"github.com/bfgo/bf/libbf/ref"
)

// importer holds one import. A round converts every file; when the final checks find a
// front matter key or a note the format refuses, the key or note is set aside and the
// round runs again, so links never point at something left out.
type importer struct {
	opt      Options
	src      string
	dest     string
	from     string
	t        *target
	excluded map[string]string            // source note -> why it is left out
	badKeys  map[string]map[string]string // source note -> key -> why it is dropped
}

// maxRounds bounds the rounds: each one sets aside at least one more key or note.
const maxRounds = 8

func (imp *importer) run(ctx context.Context) (*Report, error) {
	for round := 1; ; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, docs, files, err := imp.convert()
		if err != nil {
			return nil, err
		}
		progress := false
		for _, d := range docs {
			for key, why := range d.refused {
				imp.setKey(d.f.src, key, why)
				progress = true
			}
			if d.fail != "" {
				imp.excluded[d.f.src] = d.fail
				progress = true
			}
		}
		if !progress && !imp.opt.DryRun {
			more, err := imp.write(ctx, r, docs, files)
			if err != nil {
				return nil, err
			}
			progress = more
			if !more {
				r.sort()
				return r, nil
			}
		}
		if !progress {
			r.sort()
			return r, nil
		}
		if round == maxRounds {
			return nil, fmt.Errorf("the import still fails the format's checks after %d rounds; report this with the source file names", maxRounds)
		}
	}
}

func (imp *importer) setKey(src, key, why string) {
	if imp.badKeys[src] == nil {
		imp.badKeys[src] = map[string]string{}
	}
	imp.badKeys[src][key] = why
}

// doc is one note being converted.
type doc struct {
	f        *file
	line0    int // source line of the body's first line
	fm       *matter
	body     string // converted body, destinations of section links still placeholders
	links    []pending
	text     string // the final file
	refused  map[string]string
	fail     string
	sections *note.Note
}

// pending is a link whose section is known only once the target note is converted.
type pending struct {
	dest     string // the target's path relative to the linking note ("" for the note itself)
	to       *file
	headings []string
	block    string
	raw      string
	line     int
}

const phOpen, phClose = "\uE000", "\uE001"

// convert runs one round in memory.
func (imp *importer) convert() (*Report, []*doc, []*file, error) {
	r := &Report{Brain: imp.t.root, Folder: imp.t.folder, From: imp.from, Created: imp.t.create, DryRun: imp.opt.DryRun,
		Changed: []Change{}, Converted: []Moved{}, Copied: []Moved{}, Dropped: []Dropped{}, Renamed: []Renamed{}, Unresolved: []Unresolved{}}
	files, err := walk(imp.src, r)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("SOURCE: %w", err)
	}
	nm := newNamer(imp.t.folder, imp.t.reserved)
	for _, f := range files {
		if why, ok := imp.excluded[f.src]; ok {
			r.drop(f.src, "", why)
			continue
		}
		if f.note && f.size > note.MaxBytes {
			r.drop(f.src, "", "larger than 4 MiB, the format's note size limit")
			continue
		}
		out, why := nm.place(f)
		if tooLong(out) {
			r.drop(f.src, "", fmt.Sprintf("its brain path would exceed %d characters once percent-encoded", maxPath))
			continue
		}
		f.out = out
		if why != "" {
			r.Renamed = append(r.Renamed, Renamed{From: f.src, To: out, Reason: why})
		}
	}
	var docs []*doc
	byOut := map[string]*doc{}
	for _, f := range files {
		if f.out == "" {
			continue
		}
		if !f.note {
			r.Copied = append(r.Copied, Moved{From: f.src, To: f.out})
			continue
		}
		d, err := imp.read(f, r)
		if err != nil {
			r.drop(f.src, "", err.Error())
			f.out = ""
			continue
		}
		docs = append(docs, d)
		byOut[f.out] = d
	}
	// Links are converted once every note is read, so a link to a note that could not be
	// read stays text.
	x := newIndex(files)
	for _, d := range docs {
		imp.links(d, x, r)
		d.body = withAliases(d.body, d.fm.aliases)
	}
	// Sections are known once every body is converted: headings never depend on where a
	// link points.
	for _, d := range docs {
		text := d.fm.render() + d.body
		n, err := note.Parse(d.f.out, []byte(text), note.KindOf(d.f.out))
		if err != nil {
			d.fail = "after conversion: " + err.Error()
			continue
		}
		d.sections = n
		if n.Meta.Title == "" && !hasH1(n) {
			d.fm.title = strings.TrimSuffix(cleanName(path.Base(d.f.src)), path.Ext(d.f.src))
		}
	}
	for _, d := range docs {
		if d.fail != "" {
			continue
		}
		pairs := make([]string, 0, 2*len(d.links))
		for i, p := range d.links {
			pairs = append(pairs, phOpen+strconv.Itoa(i)+phClose, imp.section(d, p, byOut, r))
		}
		d.text = d.fm.render() + strings.NewReplacer(pairs...).Replace(d.body)
		if len(d.text) > note.MaxBytes {
			d.fail = "larger than 4 MiB once converted, the format's note size limit"
			continue
		}
		n, err := note.Parse(d.f.out, []byte(d.text), note.KindOf(d.f.out))
		if err != nil {
			d.fail = "after conversion: " + err.Error()
			continue
		}
		for _, p := range append(n.Problems, n.Check()...) {
			key, _, _ := strings.Cut(p.Field, ".")
			if key != "" && d.fm.has(key) {
				if d.refused == nil {
					d.refused = map[string]string{}
				}
				d.refused[key] = p.Message
				continue
			}
			d.fail = "the converted note breaks a rule of the format: " + p.Error()
		}
		r.Converted = append(r.Converted, Moved{From: d.f.src, To: d.f.out})
	}
	return r, docs, files, nil
}

func hasH1(n *note.Note) bool {
	for _, s := range n.Sections {
		if s.Level == 1 {
			return s.Title != ""
		}
	}
	return false
}

// read loads one note: its text as UTF-8 with \n line endings, its front matter and body.
func (imp *importer) read(f *file, r *Report) (*doc, error) {
	data, err := os.ReadFile(filepath.Join(imp.src, filepath.FromSlash(f.src)))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %s", reason(err))
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		dec, err := charmap.Windows1252.NewDecoder().Bytes(data)
		if err != nil {
			return nil, fmt.Errorf("not UTF-8 and not Windows-1252 text")
		}
		data = dec
		r.change(f.src, "not UTF-8: read as Windows-1252 and written as UTF-8")
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	conflicts := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "<<<<<<<") || strings.HasPrefix(l, "|||||||") || strings.HasPrefix(l, ">>>>>>>") {
			lines[i] = " " + l
			conflicts++
		}
	}
	if conflicts > 0 {
		text = strings.Join(lines, "\n")
		r.change(f.src, "%d lines starting like Git conflict markers indented by one space, which the format requires", conflicts)
	}
	n, err := note.Parse(f.out, []byte(text), note.Markdown)
	if err != nil {
		return nil, err
	}
	d := &doc{f: f, line0: 1}
	raw := ""
	if n.BodyLine > 1 {
		raw = strings.Join(lines[1:n.BodyLine-2], "\n")
		d.line0 = n.BodyLine
		text = strings.Join(lines[n.BodyLine-1:], "\n")
	}
	d.fm = imp.matter(f, raw, r)
	d.body = text
	return d, nil
}

// typeOf is the type of a note from the folder mapping, else from its authored root.
func (imp *importer) typeOf(src string) string {
	best, typ := -1, ""
	low := strings.ToLower(src)
	for folder, t := range imp.opt.Types {
		f := strings.ToLower(strings.Trim(folder, "/"))
		if (f == "" || strings.HasPrefix(low, f+"/")) && len(f) > best {
			best, typ = len(f), t
		}
	}
	if typ != "" {
		return typ
	}
	if strings.HasPrefix(imp.t.folder, "projects") {
		return "project"
	}
	return "concept"
}

// edit replaces text[start:end].
type edit struct {
	start, end int
	with       string
}

var schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`) })

// links rewrites the wikilinks, embeds and Markdown links of d's body and gathers its
// inline tags.
func (imp *importer) links(d *doc, x *index, r *Report) {
	body := d.body
	var starts []int // offsets of the body's line starts after the first
	for i := 0; i < len(body); i++ {
		if body[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return d.line0 + sort.SearchInts(starts, off+1) }
	var edits []edit
	unresolved := func(off int, raw, why string) {
		r.Unresolved = append(r.Unresolved, Unresolved{File: d.f.src, Line: lineOf(off), Link: raw, Reason: why})
	}
	for _, l := range obsidian.Find(body) {
		raw := l.Raw(body)
		to := d.f
		if l.Path != "" {
			var amb bool
			to, amb = x.resolve(d.f.src, l.Path)
			if to == nil {
				// Escaped, the brackets read as text everywhere, Obsidian included.
				at := l.Start
				if l.Embed {
					at++
				}
				edits = append(edits, edit{at, at, `\`})
				unresolved(l.Start, raw, "no file in the source folder has this name; kept as text")
				continue
			}
			if amb {
				r.change(d.f.src, "line %d: %s matches several files; linked to %s, as Obsidian picks", lineOf(l.Start), raw, to.src)
			}
		}
		label := l.Path
		if len(l.Headings) > 0 {
			label = strings.TrimPrefix(strings.Join(append([]string{l.Path}, l.Headings...), " > "), " > ")
		} else if l.Block != "" && l.Path == "" {
			label = "^" + l.Block
		}
		if l.HasText {
			label = l.Text
		}
		dest := relDest(d.f.out, to.out)
		if to == d.f {
			dest = ""
		}
		if !to.note {
			alt := label
			if l.Embed {
				stem := strings.TrimSuffix(path.Base(to.src), path.Ext(to.src))
				switch {
				case !l.HasText:
					alt = stem
				case sizeRE().MatchString(l.Text):
					alt = stem + "|" + l.Text
				}
			}
			edits = append(edits, edit{l.Start, l.End, bang(l.Embed) + "[" + escapeText(alt, l.EscapedPipe) + "](" + dest + ")"})
			continue
		}
		if len(l.Headings) > 0 || l.Block != "" {
			dest = d.pend(pending{dest: dest, to: to, headings: l.Headings, block: l.Block, raw: raw, line: lineOf(l.Start)})
		} else if dest == "" {
			dest = relDest(d.f.out, d.f.out)
		}
		edits = append(edits, edit{l.Start, l.End, bang(l.Embed) + "[" + escapeText(label, l.EscapedPipe) + "](" + dest + ")"})
	}
	for _, m := range obsidian.FindDests(body) {
		v := m.Value
		if v == "" || v == "#" || schemeRE().MatchString(v) {
			continue
		}
		raw := body[m.Start:m.End]
		p, frag, _, err := ref.SplitFragment(v)
		if err != nil {
			edits = append(edits, edit{m.Open + 1, m.Open + 1, `\`})
			unresolved(m.Start, raw, "not a valid link destination; kept as text")
			continue
		}
		to := d.f
		if p != "" {
			to, _ = x.resolve(d.f.src, "./"+p)
			if to == nil {
				to, _ = x.resolve(d.f.src, p)
			}
			if to == nil {
				edits = append(edits, edit{m.Open + 1, m.Open + 1, `\`})
				unresolved(m.Start, raw, "no file in the source folder at this path; kept as text")
				continue
			}
		}
		dest := relDest(d.f.out, to.out)
		if to == d.f {
			dest = ""
		}
		switch {
		case frag != "" && to.note:
			dest = d.pend(pending{dest: dest, to: to, headings: []string{frag}, raw: raw, line: lineOf(m.Start)})
		case frag != "":
			dest += "#" + ref.EscapeFragment(frag)
		case dest == "":
			dest = relDest(d.f.out, d.f.out)
		}
		edits = append(edits, edit{m.Start, m.End, dest})
	}
	d.body = apply(body, edits)
	for _, t := range obsidian.FindTags(body) {
		d.fm.addTag(t.Label, d.f.src, r)
	}
}

var sizeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+(x\d+)?$`) })

func bang(embed bool) string {
	if embed {
		return "!"
	}
	return ""
}

// pend records a link whose section is resolved later and returns its placeholder.
func (d *doc) pend(p pending) string {
	d.links = append(d.links, p)
	return phOpen + strconv.Itoa(len(d.links)-1) + phClose
}

// section turns a pending link into its destination: the target's path and the slug of
// the heading it names, or of the heading above the block it names.
func (imp *importer) section(d *doc, p pending, byOut map[string]*doc, r *Report) string {
	whole := p.dest
	if whole == "" {
		whole = relDest(d.f.out, d.f.out)
	}
	t := byOut[p.to.out]
	if t == nil || t.sections == nil {
		return whole
	}
	n := t.sections
	if p.block != "" {
		line := obsidian.BlockLine(t.fm.render()+t.body, p.block)
		if line == 0 {
			r.Unresolved = append(r.Unresolved, Unresolved{File: d.f.src, Line: p.line, Link: p.raw, Reason: "no block ^" + p.block + " in " + p.to.src + "; linked to the whole note"})
			return whole
		}
		slug := ""
		for _, s := range n.Sections {
			if s.Line <= line {
				slug = s.Slug
			}
		}
		if slug == "" {
			return whole
		}
		return p.dest + "#" + ref.EscapeFragment(slug)
	}
	from := 0
	slug := ""
	for _, h := range p.headings {
		found := false
		for i := from; i < len(n.Sections); i++ {
			if headingKey(n.Sections[i].Title) == headingKey(h) {
				slug, from, found = n.Sections[i].Slug, i+1, true
				break
			}
		}
		if !found {
			slug = ""
			break
		}
	}
	if slug == "" {
		r.Unresolved = append(r.Unresolved, Unresolved{File: d.f.src, Line: p.line, Link: p.raw, Reason: "no such heading in " + p.to.src + "; linked to the whole note"})
		return whole
	}
	return p.dest + "#" + ref.EscapeFragment(slug)
}

// headingKey compares heading texts as Obsidian's heading links do: letter case, markup
// and punctuation aside.
func headingKey(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 0x7f && !isSpaceOrPunct(r))
	}), " ")
}

func isSpaceOrPunct(r rune) bool {
	return strings.ContainsRune("\u00a0\u2000\u2001\u2002\u2003\u2009\u200a\u3000\u2013\u2014\u2018\u2019\u201c\u201d\u2026\u00ab\u00bb", r)
}

// relDest is the Markdown destination of to from the note at from: a relative,
// percent-encoded path that no link reader mistakes for a URI.
func relDest(from, to string) string {
	rel, err := filepath.Rel(path.Dir(from), to)
	if err != nil {
		rel = to
	}
	rel = filepath.ToSlash(rel)
	first, _, _ := strings.Cut(rel, "/")
	out := ref.EscapePath(rel)
	if strings.Contains(first, ":") {
		out = "./" + out
	}
	return out
}

// escapeText makes s safe as a Markdown link text.
func escapeText(s string, pipe bool) string {
	s = strings.NewReplacer(`[`, `\[`, `]`, `\]`).Replace(s)
	if pipe {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	return s
}

// apply performs edits sorted by position, skipping any that overlaps an earlier one.
func apply(s string, edits []edit) string {
	sortEdits(edits)
	var b strings.Builder
	pos := 0
	for _, e := range edits {
		if e.start < pos {
			continue
		}
		b.WriteString(s[pos:e.start])
		b.WriteString(e.with)
		pos = e.end
	}
	b.WriteString(s[pos:])
	return b.String()
}

func day(unix int64) string { return time.Unix(unix, 0).UTC().Format(time.DateOnly) }
