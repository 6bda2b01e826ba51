package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/record"
)

// textWords draws a text length: log-normal around median words, within [lo, hi].
func textWords(r *rand.Rand, median, sigma float64, lo, hi int) int {
	n := int(median * math.Exp(sigma*r.NormFloat64()))
	return min(max(n, lo), hi)
}

// prose writes about n words of paragraphs.
func prose(b *strings.Builder, r *rand.Rand, topic, n int) {
	words, inPara := 0, 0
	for words < n {
		k := min(sentenceLen(r), max(3, n-words))
		if inPara > 0 {
			b.WriteByte(' ')
		}
		sentence(b, r, topic, k)
		words += k
		inPara++
		if inPara >= 3+r.IntN(4) && words < n {
			b.WriteString("\n\n")
			inPara = 0
		}
	}
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// RecordFile returns the brain-relative path and the canonical bytes of record i.
func (p *Plan) RecordFile(i int) (string, []byte, error) {
	src, j := p.RecordSource(i)
	rec := p.record(rng(p.Config.Seed, streamRecord, i), src, j)
	b, err := rec.Canonical()
	return "memories/" + p.Folder(src, j) + "/" + record.FileName(rec.ID), b, err
}

// ExtraTicket returns a ticket beyond the generated ones (j >= PerSrc of tickets), whose
// text ends with marker, for measuring what adding records costs.
func (p *Plan) ExtraTicket(j int, marker string) (string, []byte, error) {
	rec := p.record(rng(p.Config.Seed, streamExtra, j), "tickets", j)
	rec.Text += " " + marker
	b, err := rec.Canonical()
	return "memories/tickets/" + record.FileName(rec.ID), b, err
}

func (p *Plan) personLink(r *rand.Rand) (Person, string) {
	if len(p.People) == 0 {
		return Person{Name: "Someone", Email: "someone@example.test"}, "person:email/someone@example.test"
	}
	pr := p.person(r)
	return pr, "person:email/" + pr.Email
}

func (p *Plan) record(r *rand.Rand, src string, j int) record.Record {
	topic := r.IntN(numTopics)
	t := instant(r)
	rec := record.Record{ID: p.RecordID(src, j), Time: stamp(t), Attributes: map[string]any{}}
	var text strings.Builder
	var links []string
	noteLink := func(chance int) {
		if r.IntN(100) < chance && len(p.ranked) > 0 {
			links = append(links, "bf://"+BrainName+"/"+p.Notes[p.popularNote(r, -1)].Path)
		}
	}
	switch src {
	case "tickets":
		rec.Title = phraseOf(r, topic, 4+r.IntN(6))
		prose(&text, r, topic, textWords(r, 70, 0.7, 10, 600))
		rec.URL = TicketURL(j)
		who, id := p.personLink(r)
		links = append(links, id)
		if len(p.Repos) > 0 && r.IntN(2) == 0 {
			links = append(links, p.Repos[r.IntN(len(p.Repos))])
		}
		noteLink(20)
		if r.IntN(10) == 0 && j > 0 {
			links = append(links, "tickets:"+TicketKey(r.IntN(j)))
		}
		age := epochStart.AddDate(0, 0, epochDays).Sub(t).Hours() / 24
		state := "done"
		if age < 90 {
			state = []string{"open", "in progress", "blocked", "done"}[r.IntN(4)]
		}
		rec.Attributes["status"] = state
		rec.Attributes["priority"] = []string{"low", "normal", "normal", "high", "urgent"}[r.IntN(5)]
		rec.Attributes["assignee"] = who.Email
		rec.Attributes[record.AttrUpdated] = stamp(t.Add(time.Duration(r.IntN(30*24)) * time.Hour))
		if r.IntN(2) == 0 {
			rec.Fields = map[string]any{"owner": []any{id}}
		}
		if r.IntN(10) == 0 {
			rec.Aliases = []string{"jira:" + rec.ID}
		}
	case "mail":
		from, fromID := p.personLink(r)
		to, toID := p.personLink(r)
		rec.Title = phraseOf(r, topic, 3+r.IntN(6))
		if r.IntN(3) == 0 {
			rec.Title = "Re: " + rec.Title
		}
		fmt.Fprintf(&text, "Hi %s,\n\n", strings.Fields(to.Name)[0])
		prose(&text, r, topic, textWords(r, 120, 0.7, 15, 1500))
		fmt.Fprintf(&text, "\n\nThanks,\n%s", strings.Fields(from.Name)[0])
		switch {
		case r.IntN(100) < 12 && p.PerSrc[0] > 0:
			rec.URL = TicketURL(r.IntN(p.PerSrc[0]))
		default:
			rec.URL = fmt.Sprintf("https://mail.example.test/m/%016x", mix(uint64(j)^0x3a11))
		}
		links = append(links, fromID, toID)
		noteLink(5)
		rec.Attributes["from"] = from.Email
		rec.Attributes["to"] = []any{to.Email}
	case "chat":
		author, id := p.personLink(r)
		prose(&text, r, topic, textWords(r, 18, 0.6, 3, 150))
		ws := strings.Fields(text.String())
		rec.Title = strings.TrimRight(strings.Join(ws[:min(8, len(ws))], " "), ".,?")
		switch x := r.IntN(100); {
		case x < 10 && p.PerSrc[0] > 0:
			rec.URL = TicketURL(r.IntN(p.PerSrc[0]))
		case x < 14 && p.PerSrc[3] > 0:
			rec.URL = p.DocURL(r.IntN(p.PerSrc[3]))
		default:
			rec.URL = "https://chat.example.test/archives/" + rec.ID
		}
		links = append(links, id)
		rec.Attributes["channel"] = "#" + strings.SplitN(rec.ID, "/", 2)[0]
		rec.Attributes["author"] = author.Email
	default: // docs
		author, id := p.personLink(r)
		rec.Title = phraseOf(r, topic, 2+r.IntN(5))
		n := textWords(r, 500, 0.6, 80, 4000)
		for n > 0 {
			k := min(n, 120+r.IntN(200))
			text.WriteString(phraseOf(r, topic, 1+r.IntN(3)) + "\n\n")
			prose(&text, r, topic, k)
			text.WriteString("\n\n")
			n -= k
		}
		rec.URL = p.DocURL(j)
		links = append(links, id)
		noteLink(30)
		rec.Attributes["author"] = author.Email
		rec.Attributes[record.AttrUpdated] = stamp(t.Add(time.Duration(r.IntN(90*24)) * time.Hour))
	}
	rec.Text = strings.TrimSpace(text.String())
	rec.Links = links
	return rec
}
