package reply

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on problems.
const (
	// maxFileProblems is how many skipped files one brain lists before a count of the rest.
	maxFileProblems = 200
	// maxProblemBytes bounds each error text, in UTF-8 bytes, "…" included.
	maxProblemBytes = 1 << 10
)

// Problem says why a reply may be incomplete: a skipped file, an identity or a brain.
type Problem struct {
	Brain string `json:"brain,omitempty"`
	Error string `json:"error"`
	File  string `json:"file,omitempty"`
}

// Problems collects the problems of one reply in order: each once, error texts capped at
// maxProblemBytes, and at most maxFileProblems skipped files per brain, after which one
// problem counts the rest ("N more files were skipped; run bf validate"). The zero value
// is ready to use.
type Problems struct {
	list  []Problem
	seen  map[Problem]bool
	files map[string]int // brain → file problems listed
	more  map[string]int // brain → index in list of its count problem
	extra map[string]int // brain → files beyond the limit
}

// Add records one problem.
func (p *Problems) Add(pr Problem) {
	pr.Error = capBytes(pr.Error, maxProblemBytes)
	if p.seen == nil {
		p.seen = map[Problem]bool{}
		p.files = map[string]int{}
		p.more = map[string]int{}
		p.extra = map[string]int{}
	}
	if p.seen[pr] {
		return
	}
	p.seen[pr] = true
	if pr.File != "" {
		if p.files[pr.Brain] >= maxFileProblems {
			if _, ok := p.more[pr.Brain]; !ok {
				p.more[pr.Brain] = len(p.list)
				p.list = append(p.list, Problem{Brain: pr.Brain})
			}
			p.extra[pr.Brain]++
			return
		}
		p.files[pr.Brain]++
	}
	p.list = append(p.list, pr)
}

// AddError records an error of a brain ("" when it concerns no single brain).
func (p *Problems) AddError(brain, msg string) { p.Add(Problem{Brain: brain, Error: msg}) }

// List returns the problems in the order added, or nil when there are none.
func (p *Problems) List() []Problem {
	if len(p.list) == 0 {
		return nil
	}
	out := make([]Problem, len(p.list))
	copy(out, p.list)
	for brain, i := range p.more {
		out[i].Error = fmt.Sprintf("%d more files were skipped; run bf validate", p.extra[brain])
	}
	return out
}

// Len is the number of problems List returns.
func (p *Problems) Len() int { return len(p.list) }

// capBytes cuts s to at most n bytes, ending a cut text with "…" on a character boundary.
func capBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "") + ellipsis
}
