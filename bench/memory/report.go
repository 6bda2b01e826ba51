package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/internal/measure"
)

// Result is one run of the memory benchmark; it is written as JSON.
type Result struct {
	When   string        `json:"when"`
	Locomo *LocomoResult `json:"locomo,omitempty"`
	Speed  *SpeedResult  `json:"speed,omitempty"`
}

// Markdown is the LoCoMo table: each method's Recall@10 and MRR@10, over all questions
// and per category.
func (r *LocomoResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### LoCoMo: %d conversations (%s), %d turns saved as `%s` memories, %d questions of categories 1–4\n\n",
		len(r.Conversations), strings.Join(r.Conversations, ", "), r.Turns, r.Type, r.Questions)
	b.WriteString("| method | Recall@10 | MRR@10 |")
	for c := 1; c <= 4; c++ {
		fmt.Fprintf(&b, " cat. %d (n=%d) R@10 / MRR |", c, r.Scores[methods[0]][strconv.Itoa(c)].N)
	}
	b.WriteString(" pages under 10 |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, m := range methods {
		all := r.Scores[m]["all"]
		fmt.Fprintf(&b, "| %s | %.3f | %.3f |", m, all.Recall, all.MRR)
		for c := 1; c <= 4; c++ {
			s := r.Scores[m][strconv.Itoa(c)]
			fmt.Fprintf(&b, " %.3f / %.3f |", s.Recall, s.MRR)
		}
		fmt.Fprintf(&b, " %d |\n", r.ShortPages[m])
	}
	b.WriteString("\n")
	if r.CLISave != nil {
		fmt.Fprintf(&b, "Saving: %d turns by one `bf remember` process each, %s at the median (p95 %s); the rest in process through `memory.Store.Remember`, %s each on average.\n\n",
			r.CLISave.N, measure.Millis(r.CLISave.Median), measure.Millis(r.CLISave.P95), measure.Millis(r.LibrarySaveMS))
	}
	return b.String()
}

func (r Result) write(o options, md string) error {
	r.When = time.Now().UTC().Format(time.RFC3339)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "memory.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "memory.md"), []byte(md), 0o644); err != nil {
		return err
	}
	if o.readme != "" {
		return measure.ReplaceBetween(o.readme, "<!-- bench:memory -->", "<!-- /bench:memory -->", md)
	}
	return nil
}
