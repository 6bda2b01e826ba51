package gen

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"time"
)

// rel is the relative link from the note at from to the file at to (both brain-relative).
func rel(from, to string) string {
	fd := strings.Split(path.Dir(from), "/")
	td := strings.Split(to, "/")
	i := 0
	for i < len(fd) && i < len(td)-1 && fd[i] == td[i] {
		i++
	}
	return strings.Repeat("../", len(fd)-i) + strings.Join(td[i:], "/")
}

// popularNote picks a linked note: a few notes get most links, the hub the most.
func (p *Plan) popularNote(r *rand.Rand, not int) int {
	for {
		if j := p.ranked[p.noteZipf().pick(r)]; j != not {
			return j
		}
		if len(p.ranked) < 2 {
			return -1
		}
	}
}

func (p *Plan) noteZipf() *zipf { return p.zNotes }

func (p *Plan) person(r *rand.Rand) Person {
	return p.People[p.zPeople.pick(r)]
}

func (p *Plan) tag(r *rand.Rand) string {
	return tags[p.zTags.pick(r)]
}

// link returns a Markdown link from note from: to another note or one of its sections,
// a record, a person, a repository, a typed relation or a web page.
func (p *Plan) link(r *rand.Rand, from int) string {
	n := p.Notes[from]
	x := r.IntN(100)
	switch {
	case x < 45:
		j := p.popularNote(r, from)
		if j < 0 {
			break
		}
		t := p.Notes[j]
		target := rel(n.Path, t.Path)
		if len(t.Slugs) > 0 && r.IntN(4) == 0 {
			target += "#" + t.Slugs[r.IntN(len(t.Slugs))]
		}
		return fmt.Sprintf("[%s](%s)", strings.ToLower(t.Title), target)
	case x < 63:
		if r.IntN(3) > 0 && p.PerSrc[0] > 0 {
			k := TicketKey(r.IntN(p.PerSrc[0]))
			return fmt.Sprintf("[%s](tickets:%s)", k, k)
		}
		if p.PerSrc[3] > 0 {
			return fmt.Sprintf("[%s](docs:%s)", strings.ToLower(phraseOf(r, n.Topic, 2)), p.RecordID("docs", r.IntN(p.PerSrc[3])))
		}
	case x < 73:
		if len(p.People) == 0 {
			break
		}
		pr := p.person(r)
		if r.IntN(2) == 0 {
			return fmt.Sprintf("[%s](%s)", pr.Name, rel(n.Path, p.Notes[pr.Note].Path))
		}
		return fmt.Sprintf("[%s](%s)", pr.Name, pr.Entity)
	case x < 80:
		if len(p.Repos) > 0 {
			repo := p.Repos[r.IntN(len(p.Repos))]
			return fmt.Sprintf("[%s](%s)", repo, repo)
		}
	case x < 88:
		if j := p.popularNote(r, from); j >= 0 {
			relation := []string{"depends-on", "related-to"}[r.IntN(2)]
			return fmt.Sprintf("[%s](bf://%s/%s?rel=%s)", strings.ToLower(p.Notes[j].Title), BrainName, p.Notes[j].Path, relation)
		}
	}
	switch {
	case r.IntN(2) == 0 && p.PerSrc[0] > 0:
		j := r.IntN(p.PerSrc[0])
		return fmt.Sprintf("[%s](%s)", TicketKey(j), TicketURL(j))
	case r.IntN(2) == 0 && p.PerSrc[3] > 0:
		return fmt.Sprintf("[the doc](%s)", p.DocURL(r.IntN(p.PerSrc[3])))
	default:
		return fmt.Sprintf("<https://www.example.org/%s>", slugOf(phraseOf(r, n.Topic, 2)))
	}
}

// paragraph writes 2 to 5 sentences, some carrying a link.
func (p *Plan) paragraph(b *strings.Builder, r *rand.Rand, i int) {
	n := 2 + r.IntN(4)
	for k := range n {
		if k > 0 {
			b.WriteByte(' ')
		}
		sentence(b, r, p.Notes[i].Topic, sentenceLen(r))
		if r.IntN(8) == 0 {
			switch r.IntN(4) {
			case 0:
				fmt.Fprintf(b, " See %s.", p.link(r, i))
			case 1:
				fmt.Fprintf(b, " Details are in %s.", p.link(r, i))
			case 2:
				fmt.Fprintf(b, " (%s)", p.link(r, i))
			default:
				fmt.Fprintf(b, " Related: %s.", p.link(r, i))
			}
		}
	}
	b.WriteString("\n\n")
}

func (p *Plan) task(b *strings.Builder, r *rand.Rand, i int, done bool) {
	mark := " "
	if done {
		mark = "x"
	}
	fmt.Fprintf(b, "- [%s] ", mark)
	sentence(b, r, p.Notes[i].Topic, 4+r.IntN(8))
	if r.IntN(4) == 0 {
		fmt.Fprintf(b, " (%s)", p.link(r, i))
	}
	b.WriteByte('\n')
}

func yamlList(items []string) string {
	q := make([]string, len(items))
	for k, s := range items {
		q[k] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func conceptType(n Note) string {
	switch {
	case strings.HasPrefix(n.Path, "concepts/runbooks/"):
		return "runbook"
	case strings.HasPrefix(n.Path, "concepts/policies/"):
		return "policy"
	case strings.HasPrefix(n.Path, "concepts/decisions/"):
		return "decision"
	default:
		return "concept"
	}
}

// NoteText returns the bytes of note i.
func (p *Plan) NoteText(i int) []byte {
	n := p.Notes[i]
	r := rng(p.Config.Seed, streamNote, i)
	var b strings.Builder
	switch n.Kind {
	case KindIndex:
		p.indexText(&b, r, i)
		return []byte(b.String())
	case KindLog:
		p.logText(&b, r, i)
		return []byte(b.String())
	}

	b.WriteString("---\n")
	switch n.Kind {
	case KindOutput:
		fmt.Fprintf(&b, "title: %q\n", n.Title)
	default:
		typ := n.Kind
		if n.Kind == KindConcept {
			typ = conceptType(n)
		}
		var summary strings.Builder
		sentence(&summary, r, n.Topic, 8+r.IntN(10))
		fmt.Fprintf(&b, "type: %s\nstatus: %s\ntitle: %q\nupdated: %s\nsummary: %q\n",
			typ, n.Status, n.Title, n.Updated.Format(time.DateOnly), summary.String())
		var ts []string
		for range 1 + r.IntN(4) {
			if t := p.tag(r); !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
		if n.Kind == KindPerson {
			ts = append(ts, "people")
		}
		fmt.Fprintf(&b, "tags: [%s]\n", strings.Join(ts, ", "))
		switch {
		case n.Kind == KindPerson:
			pr := p.People[n.person]
			fmt.Fprintf(&b, "entity: %s\naliases: [\"person:email/%s\"]\n", pr.Entity, pr.Email)
		case n.repo >= 0:
			fmt.Fprintf(&b, "aliases: [%q]\n", p.Repos[n.repo])
		}
		if n.Kind == KindProject && r.IntN(5) == 0 {
			fmt.Fprintf(&b, "stale_after: %s\n", n.Updated.AddDate(0, 3, 0).Add(9*time.Hour).Format(time.RFC3339))
		}
		if (n.Kind == KindProject || n.Kind == KindAction) && r.IntN(5) < 2 && p.PerSrc[0] > 0 {
			b.WriteString("sources:\n")
			for range 1 + r.IntN(3) {
				fmt.Fprintf(&b, "  - resource: \"tickets:%s\"\n", TicketKey(r.IntN(p.PerSrc[0])))
			}
		}
		p.fields(&b, r, i)
	}
	b.WriteString("---\n\n")

	fmt.Fprintf(&b, "# %s\n\n", n.Title)
	for range 1 + r.IntN(2) {
		p.paragraph(&b, r, i)
	}
	for _, h := range n.headings {
		fmt.Fprintf(&b, "%s %s", strings.Repeat("#", h.level), h.text)
		if h.anchor {
			b.WriteString(" {#decision}")
		}
		b.WriteString("\n\n")
		p.sectionBody(&b, r, i, h)
	}
	return []byte(b.String())
}

// fields writes the declared fields of a note: owners, dependencies, participants, kind.
func (p *Plan) fields(b *strings.Builder, r *rand.Rand, i int) {
	n := p.Notes[i]
	people := func(k int) []string {
		var l []string
		for range k {
			if len(p.People) == 0 {
				break
			}
			e := "person:email/" + p.person(r).Email
			if !slices.Contains(l, e) {
				l = append(l, e)
			}
		}
		return l
	}
	var lines []string
	switch n.Kind {
	case KindProject:
		lines = append(lines, "  owner: "+yamlList(people(1+r.IntN(2))))
		if r.IntN(5) < 2 {
			if j := p.popularNote(r, i); j >= 0 && p.Notes[j].Kind == KindProject {
				lines = append(lines, "  depends-on: "+yamlList([]string{"bf://" + BrainName + "/" + p.Notes[j].Path}))
			}
		}
		lines = append(lines, "  kind: "+[]string{"migration", "feature", "research", "maintenance", "launch"}[r.IntN(5)])
	case KindAction:
		lines = append(lines, "  organizer: "+yamlList(people(1)), "  participant: "+yamlList(people(2+r.IntN(3))))
		lines = append(lines, "  kind: "+[]string{"review", "rehearsal", "audit", "workshop", "incident"}[r.IntN(5)])
	case KindConcept:
		if r.IntN(3) == 0 {
			lines = append(lines, "  owner: "+yamlList(people(1)))
		}
		if r.IntN(4) == 0 {
			if j := p.popularNote(r, i); j >= 0 {
				lines = append(lines, "  related-to: "+yamlList([]string{"bf://" + BrainName + "/" + p.Notes[j].Path}))
			}
		}
	}
	if len(lines) > 0 {
		b.WriteString("fields:\n" + strings.Join(lines, "\n") + "\n")
	}
}

// sectionBody writes what sits under one heading.
func (p *Plan) sectionBody(b *strings.Builder, r *rand.Rand, i int, h heading) {
	n := p.Notes[i]
	switch h.text {
	case "Owner":
		if len(p.People) > 0 {
			pr := p.person(r)
			fmt.Fprintf(b, "[%s](%s?rel=owner) owns this; ", pr.Name, pr.Entity)
			sentence(b, r, n.Topic, 8+r.IntN(8))
			b.WriteString("\n\n")
			return
		}
	case "Next actions", "Tasks":
		k := 2 + r.IntN(5)
		for t := range k {
			p.task(b, r, i, t < k/2 && r.IntN(3) > 0)
		}
		b.WriteString("\n")
		return
	case "Projects":
		for range 2 + r.IntN(4) {
			if len(p.projects) == 0 {
				break
			}
			j := p.projects[r.IntN(len(p.projects))]
			fmt.Fprintf(b, "- [%s](%s)\n", p.Notes[j].Title, rel(n.Path, p.Notes[j].Path))
		}
		b.WriteString("\n")
		return
	case "Contact":
		if n.Kind == KindPerson {
			e := p.People[n.person].Email
			fmt.Fprintf(b, "Email [%s](mailto:%s); ", e, e)
			sentence(b, r, n.Topic, 6+r.IntN(6))
			b.WriteString("\n\n")
			return
		}
	case "Responsibilities":
		for range 2 + r.IntN(3) {
			b.WriteString("- ")
			sentence(b, r, n.Topic, 5+r.IntN(8))
			b.WriteByte('\n')
		}
		b.WriteString("\n")
		return
	}
	for range 1 + r.IntN(3) {
		if r.IntN(6) == 0 {
			for range 2 + r.IntN(4) {
				b.WriteString("- ")
				sentence(b, r, n.Topic, 4+r.IntN(10))
				b.WriteByte('\n')
			}
			b.WriteByte('\n')
			continue
		}
		p.paragraph(b, r, i)
	}
}

// indexText writes a root index: a short introduction and links to the first notes.
func (p *Plan) indexText(b *strings.Builder, r *rand.Rand, i int) {
	n := p.Notes[i]
	fmt.Fprintf(b, "---\nokf_version: \"0.2\"\n---\n\n# %s\n\n", n.Title)
	sentence(b, r, 0, 12)
	b.WriteString("\n\n")
	list := p.projects
	if strings.HasPrefix(n.Path, "concepts/") {
		list = p.concepts
	}
	for k, j := range list {
		if k == 40 {
			break
		}
		fmt.Fprintf(b, "- [%s](%s)\n", p.Notes[j].Title, rel(n.Path, p.Notes[j].Path))
	}
}

// logText writes the decision log: dated entries, newest first.
func (p *Plan) logText(b *strings.Builder, r *rand.Rand, i int) {
	b.WriteString("# Decision log\n\nDated changes to the team's shared knowledge, newest first.\n\n")
	d := epochStart.AddDate(0, 0, epochDays-1)
	for range 24 {
		d = d.AddDate(0, 0, -(3 + r.IntN(25)))
		fmt.Fprintf(b, "## %s\n\n", d.Format(time.DateOnly))
		sentence(b, r, r.IntN(numTopics), 10+r.IntN(10))
		fmt.Fprintf(b, " See %s.\n\n", p.link(r, i))
	}
}
