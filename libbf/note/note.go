package note

import (
	"path"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxBytes bounds an authored note: larger files are not parsed at all.
const MaxBytes = 4 << 20

// Kind says which rules apply to a Markdown file, from where it sits.
type Kind int

const (
	// Markdown is ordinary Markdown, such as an action's inputs/ and outputs/: searchable,
	// but only title, type, status, updated, summary and description apply.
	Markdown Kind = iota
	// OKF is a project or concept note, or an action's ACTION.md.
	OKF
	// index is index.md under projects/ or concepts/, listing its folder.
	index
	// log is log.md under projects/ or concepts/: dated update entries.
	log
)

func (k Kind) String() string {
	switch k {
	case OKF:
		return "okf"
	case index:
		return "index"
	case log:
		return "log"
	}
	return "markdown"
}

// KindOf derives a file's kind from its brain-relative slash path.
func KindOf(p string) Kind {
	parts := strings.Split(p, "/")
	if len(parts) < 2 || !strings.HasSuffix(p, ".md") {
		return Markdown
	}
	switch parts[0] {
	case "projects", "concepts":
		switch parts[len(parts)-1] {
		case "index.md":
			return index
		case "log.md":
			return log
		}
		return OKF
	case "actions":
		if len(parts) == 3 && parts[2] == "ACTION.md" {
			return OKF
		}
	}
	return Markdown
}

// Problem is something wrong with a note. Field names a front matter key path
// ("updated", "aliases.2") or is empty for the body; Line is 1-based in the file, 0 when
// the problem has no one line. Messages never quote the value: notes may hold secrets.
type Problem struct {
	Field   string
	Line    int
	Message string
}

// Error prints the problem as validation reports it: the field, then the message.
func (p Problem) Error() string {
	if p.Field == "" {
		return p.Message
	}
	return p.Field + ": " + p.Message
}

// Note is one parsed Markdown file.
type Note struct {
	Path string // brain-relative slash path
	Kind Kind

	// Effective values, defaults applied.
	Title   string // front matter title, else the first H1, else the file name
	Type    string // front matter type, else from the folder (project, concept, action)
	Status  string // front matter status, else "stable"
	Summary string // front matter summary, else description
	Updated string // YYYY-MM-DD or ""

	// Meta is the front matter as written and checked.
	Meta FrontMatter
	// BodyLine is the first line after the front matter block (1 without one).
	BodyLine int
	// Lines counts the file's lines.
	Lines int

	// Intro is the text before the first section passage, without the H1 that supplied
	// the title: with Summary it forms the whole-note passage.
	Intro    string
	Sections []Section
	Tasks    []Task
	Links    []Link

	// Problems make the note invalid: search skips it and reports them.
	Problems []Problem
	// Warnings leave the note searchable: front matter that could not be parsed or was
	// not closed, heading anchor mistakes, ignored values of ordinary Markdown. Check
	// reports those that matter for the note's kind.
	Warnings []Problem
}

// Invalid reports a problem that keeps the note out of search.
func (n *Note) Invalid() bool { return len(n.Problems) > 0 }

// Searchable reports whether search may index the note.
func (n *Note) Searchable() bool { return !n.Invalid() }

// CountsTasks reports whether the note's checkboxes appear in task lists and counts:
// projects, concepts and ACTION.md whatever their type, unless deprecated.
func (n *Note) CountsTasks() bool { return n.Kind == OKF && n.Status != "deprecated" }

// Section returns the section with the given slug.
func (n *Note) Section(slug string) (*Section, bool) {
	for i := range n.Sections {
		if n.Sections[i].Slug == slug {
			return &n.Sections[i], true
		}
	}
	return nil, false
}

// DisplayTitle is a section's title as results show it: "Note — Parent — Heading".
func (n *Note) DisplayTitle(s *Section) string {
	parts := append([]string{n.Title}, s.Parents...)
	if s.Passage {
		parts = append(parts, s.Title)
	}
	return strings.Join(parts, " — ")
}

// Identities are the exact identities the note claims: its entity, aliases and a
// resource that has the identity shape. Ordinary Markdown claims none.
func (n *Note) Identities() []string {
	var out []string
	if n.Meta.Entity != "" {
		out = append(out, n.Meta.Entity)
	}
	out = append(out, n.Meta.Aliases...)
	if r := n.Meta.Resource; r != "" {
		if c, err := canonicalResource(r); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// Parse reads the note at brain-relative path p with the rules of kind.
//
// It returns an error, and no note, only when the file cannot be a note at all: larger
// than MaxBytes, not UTF-8, or holding Git conflict markers. Every other problem is kept
// on the Note, which is always complete enough to validate.
func Parse(p string, data []byte, kind Kind) (*Note, error) {
	if len(data) > MaxBytes {
		return nil, Problem{Message: "note exceeds 4 MiB"}
	}
	if !utf8.Valid(data) {
		return nil, Problem{Message: "note is not UTF-8"}
	}
	src := splitLines(data)
	if line := conflictLine(src.lines); line > 0 {
		return nil, Problem{Line: line, Message: "note has Git conflict markers; resolve the merge first"}
	}
	n := &Note{Path: p, Kind: kind, BodyLine: 1, Lines: len(src.lines)}

	blk := findBlock(src.lines)
	switch {
	case blk.closed:
		n.BodyLine = blk.end + 1
		fm, invalid, soft := parseFrontMatter(strings.Join(src.lines[1:blk.end-1], "\n"), kind)
		n.Meta = fm
		n.Problems = append(n.Problems, invalid...)
		n.Warnings = append(n.Warnings, soft...)
	case blk.found:
		// The whole file, the opening --- included, is searched as body text; validation
		// still flags it.
		n.Warnings = append(n.Warnings, Problem{Field: "frontmatter", Line: 1, Message: "unclosed frontmatter"})
	}

	// The body keeps the file's line numbering: front matter lines are blanked, not cut,
	// so every offset goldmark reports maps straight to a file line.
	lines := make([]string, len(src.lines))
	copy(lines[n.BodyLine-1:], src.lines[n.BodyLine-1:])
	defuse(lines)
	body := []byte(strings.Join(lines, "\n") + "\n")
	idx := newLineIndex(lines)
	doc := parseMarkdown(body)
	labels := footnoteLabels(doc)

	hs := collectHeadings(doc, body, idx, labels)
	slugs, explicit, anchorProblems := assignSlugs(hs)
	n.Warnings = append(n.Warnings, anchorProblems...)
	n.Sections = buildSections(hs, slugs, explicit, src)

	n.Type = n.Meta.Type
	if n.Type == "" {
		n.Type = folderType(p)
	}
	n.Status = n.Meta.Status
	if n.Status == "" {
		n.Status = "stable"
	}
	n.Summary = n.Meta.Summary
	if n.Summary == "" {
		n.Summary = n.Meta.Description
	}
	n.Updated = n.Meta.Updated
	titleH1 := n.deriveTitle(hs)
	n.Intro = intro(src, n.BodyLine, n.Sections, titleH1)

	// sectionAt is the slug of the nearest heading at or above line: a link or task
	// belongs to the section it is written in.
	sectionAt := func(line int) string {
		i := sort.Search(len(n.Sections), func(i int) bool { return n.Sections[i].Line > line })
		if i == 0 {
			return ""
		}
		return n.Sections[i-1].Slug
	}
	links, cited := collectLinks(doc, body, idx)
	for _, f := range links {
		l := f.link
		l.Section = sectionAt(l.Line)
		if pos, ok := cited[f.footnote]; ok && f.footnote > 0 {
			l.Section = sectionAt(idx.line(pos))
		}
		n.Links = append(n.Links, l)
	}
	for _, t := range n.Meta.Links {
		n.Links = append(n.Links, Link{Target: t, From: fromLinks})
	}
	for _, s := range n.Meta.Sources {
		n.Links = append(n.Links, Link{Target: s.Resource, From: FromSources})
	}

	n.Tasks = collectTasks(doc, body, idx, labels)
	for i := range n.Tasks {
		n.Tasks[i].Section = sectionAt(n.Tasks[i].Line)
	}
	return n, nil
}

// conflictLine returns the first line that starts with a Git conflict marker, or 0.
// Markers count even inside code blocks: a half-merged file is never a trustworthy note.
func conflictLine(lines []string) int {
	for i, l := range lines {
		if strings.HasPrefix(l, "<<<<<<<") || strings.HasPrefix(l, "|||||||") || strings.HasPrefix(l, ">>>>>>>") {
			return i + 1
		}
	}
	return 0
}

// folderType is the default type of a note from its top folder.
func folderType(p string) string {
	root, _, _ := strings.Cut(p, "/")
	switch root {
	case "projects":
		return "project"
	case "concepts":
		return "concept"
	case "actions":
		return "action"
	}
	return ""
}

// deriveTitle sets the title: the front matter title when it is not blank and at most
// maxTitle characters, else the text of the first H1 when it is not empty, else the file
// name without its extension, '-' read as spaces. It returns the index of the heading
// that supplied the title, or -1.
func (n *Note) deriveTitle(hs []heading) int {
	if t := n.Meta.Title; strings.TrimFunc(t, isSpace) != "" && utf8.RuneCountInString(t) <= maxTitle {
		n.Title = t
		return -1
	}
	for i, h := range hs {
		if h.level == 1 {
			if h.title != "" {
				n.Title = h.title
				return i
			}
			break
		}
	}
	stem := strings.TrimSuffix(path.Base(n.Path), path.Ext(n.Path))
	n.Title = strings.ReplaceAll(stem, "-", " ")
	return -1
}

// buildSections turns headings into sections with extents, text and parents.
func buildSections(hs []heading, slugs []string, explicit []bool, src source) []Section {
	if len(hs) == 0 {
		return nil
	}
	eof := len(src.lines) + 1
	secs := make([]Section, len(hs))
	var open []int
	for i, h := range hs {
		s := Section{
			Level: h.level, Title: h.title, Slug: slugs[i], Anchor: explicit[i],
			Line: h.line, End: eof, TextLine: h.last + 1, Next: eof, Parent: -1,
			Passage: i > 0 || h.level > 1,
		}
		if i+1 < len(hs) {
			s.Next = hs[i+1].line
		}
		// open holds the sections still running, levels increasing: this heading ends
		// those at its level or deeper, and the one left on top encloses it.
		for len(open) > 0 && secs[open[len(open)-1]].Level >= h.level {
			secs[open[len(open)-1]].End = h.line
			open = open[:len(open)-1]
		}
		if len(open) > 0 {
			s.Parent = open[len(open)-1]
		}
		open = append(open, i)
		s.Text = trimBlank(src.text(s.TextLine, s.Next))
		secs[i] = s
	}
	for i := range secs {
		secs[i].Offset, secs[i].EndOffset = src.offset(secs[i].Line), src.offset(secs[i].End)
	}
	for i := range secs {
		for j := secs[i].Parent; j >= 0; j = secs[j].Parent {
			if secs[j].Passage {
				secs[i].Parents = append([]string{secs[j].Title}, secs[i].Parents...)
			}
		}
	}
	return secs
}

// intro is the body before the first section passage, without the lines of the H1 that
// supplied the title.
func intro(src source, bodyLine int, secs []Section, titleH1 int) string {
	end := len(src.lines) + 1
	for _, s := range secs {
		if s.Passage {
			end = s.Line
			break
		}
	}
	if titleH1 == 0 && len(secs) > 0 && !secs[0].Passage {
		h := secs[0]
		return trimBlank(trimBlank(src.text(bodyLine, h.Line)) + "\n\n" + trimBlank(src.text(h.TextLine, end)))
	}
	return trimBlank(src.text(bodyLine, end))
}
