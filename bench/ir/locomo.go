package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/internal/locomo"
	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/reply"
	bfsearch "github.com/bfgo/bf/libbf/search"
)

// This file measures memory recall on LoCoMo (long conversations between two people, with
// questions whose evidence is named turns): every turn of a conversation becomes one
// memory note of that conversation's brain, dated by its session, and every question of
// categories 1–4 runs through word search and through fused search without a model. Each
// is scored by MRR@10 and Recall@10 of the evidence turns among the returned notes.

// Locomo is the LoCoMo table: one row per search mode, and the fused figures per class.
type Locomo struct {
	Conversations int          `json:"conversations"`
	Turns         int          `json:"turns"`
	Questions     int          `json:"questions"`
	Runs          []LocomoRun  `json:"runs"`
	Classes       []ClassScore `json:"classes"`
}

// LocomoRun is one search mode's figures.
type LocomoRun struct {
	Name     string  `json:"name"`
	MRR10    float64 `json:"mrr_at_10"`
	Recall10 float64 `json:"recall_at_10"`
}

// ClassScore is one query class's figures: word search and fused search over its queries.
type ClassScore struct {
	Class   string  `json:"class"`
	Queries int     `json:"queries"`
	Words   float64 `json:"words"`
	Fused   float64 `json:"fused"`
}

// turnNote is the memory note of a turn: a fact titled by its speaker and its first
// words, dated by its session.
func turnNote(t locomo.Turn) string {
	title := t.Speaker + ": " + strings.Join(firstWords(t.Text, 10), " ")
	js := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf("---\ntype: \"fact\"\ntitle: %s\nupdated: %q\n---\n%s\n", js(title), t.At.Format(time.DateOnly), t.Text)
}

func firstWords(s string, n int) []string {
	w := strings.Fields(s)
	return w[:min(n, len(w))]
}

// turnFile is the note path of a turn (D12:3 → concepts/memory/d12-3.md).
func turnFile(id string) string {
	return "concepts/memory/" + strings.ToLower(strings.NewReplacer(":", "-").Replace(id)) + ".md"
}

// writeConversation writes a conversation's brain unless a complete one is there.
func writeConversation(dir string, c *locomo.Conversation) error {
	stamp := filepath.Join(dir, "complete")
	if _, err := os.Stat(stamp); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	brainDir := filepath.Join(dir, "brain")
	if err := os.MkdirAll(filepath.Join(brainDir, "concepts", "memory"), 0o755); err != nil {
		return err
	}
	config := "version: 8\nname: " + strings.ReplaceAll(c.Name, "-", "") + "\n"
	if err := os.WriteFile(filepath.Join(brainDir, "bf.yaml"), []byte(config), 0o644); err != nil {
		return err
	}
	for _, t := range c.Turns {
		if err := os.WriteFile(filepath.Join(brainDir, turnFile(t.ID)), []byte(turnNote(t)), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(stamp, nil, 0o644)
}

// locomoRun measures word and fused search on every conversation file in dir.
func locomoRun(bf, dir, cacheDir string) (*Locomo, error) {
	files, err := locomo.Files(dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		logf("no LoCoMo conversations in %s; skipped (see bench/README.md)", dir)
		return nil, nil
	}
	slices.Sort(files)
	res := &Locomo{}
	words := LocomoRun{Name: "word search"}
	fusedRun := LocomoRun{Name: "fused, no model"}
	classes := map[string]*ClassScore{}
	for _, file := range files {
		c, err := locomo.Load(file)
		if err != nil {
			return nil, err
		}
		b, _ := os.ReadFile(file)
		sum := sha256.Sum256(b)
		cdir, err := filepath.Abs(filepath.Join(cacheDir, "locomo-"+c.Name+"-"+hex.EncodeToString(sum[:6])))
		if err != nil {
			return nil, err
		}
		if err := writeConversation(cdir, c); err != nil {
			return nil, err
		}
		brainDir := filepath.Join(cdir, "brain")
		s, err := measure.Run(brainDir, bf, "build", "--brain", brainDir)
		if err != nil {
			return nil, err
		}
		if s.Exit != 0 {
			return nil, fmt.Errorf("bf build of %s exited %d: %s", c.Name, s.Exit, strings.TrimSpace(string(s.Stderr)))
		}
		br, err := brain.Open(brainDir)
		if err != nil {
			return nil, err
		}
		res.Conversations++
		res.Turns += len(c.Turns)
		logf("locomo %s: %d turns, %d questions", c.Name, len(c.Turns), len(c.Questions))
		for _, q := range c.Questions {
			relevant := map[string]int{}
			for _, e := range q.Evidence {
				relevant[turnFile(e)] = 1
			}
			req := bfsearch.Request{Query: q.Text, Limit: 10, Brains: []*brain.Brain{br}}
			w, err := bfsearch.Run(context.Background(), req)
			if err != nil {
				return nil, fmt.Errorf("%s: word search %q: %w", c.Name, q.Text, err)
			}
			f, err := fuse.Run(context.Background(), fuse.Request{Search: req})
			if err != nil {
				return nil, fmt.Errorf("%s: fused search %q: %w", c.Name, q.Text, err)
			}
			wm, fm := mrrAt(10, itemRefs(w.Items), relevant), mrrAt(10, itemRefs(f.Items), relevant)
			words.MRR10 += wm
			fusedRun.MRR10 += fm
			words.Recall10 += recallAt(10, itemRefs(w.Items), relevant)
			fusedRun.Recall10 += recallAt(10, itemRefs(f.Items), relevant)
			parsed, _ := fold.Parse(q.Text)
			class := fuse.Classify(q.Text, parsed)
			if classes[class] == nil {
				classes[class] = &ClassScore{Class: class}
			}
			classes[class].Queries++
			classes[class].Words += wm
			classes[class].Fused += fm
			res.Questions++
		}
	}
	n := float64(res.Questions)
	for _, r := range []*LocomoRun{&words, &fusedRun} {
		r.MRR10 /= n
		r.Recall10 /= n
		res.Runs = append(res.Runs, *r)
	}
	res.Classes = classTable(classes)
	return res, nil
}

// classTable orders the classes and turns their sums into means.
func classTable(classes map[string]*ClassScore) []ClassScore {
	var out []ClassScore
	for _, c := range classes {
		c.Words /= float64(c.Queries)
		c.Fused /= float64(c.Queries)
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b ClassScore) int { return strings.Compare(a.Class, b.Class) })
	return out
}

func itemRefs(items []reply.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.Ref
	}
	return out
}

// locomoMarkdown is the LoCoMo table.
func locomoMarkdown(l *Locomo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### LoCoMo memories: %d conversations, %d turns saved as memory notes, %d questions (categories 1–4)\n\n", l.Conversations, l.Turns, l.Questions)
	b.WriteString("| run | MRR@10 | Recall@10 |\n| --- | ---: | ---: |\n")
	for _, r := range l.Runs {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f |\n", r.Name, r.MRR10, r.Recall10)
	}
	b.WriteString("\n| class | questions | word search MRR@10 | fused MRR@10 |\n| --- | ---: | ---: | ---: |\n")
	for _, c := range l.Classes {
		fmt.Fprintf(&b, "| `%s` | %d | %.3f | %.3f |\n", c.Class, c.Queries, c.Words, c.Fused)
	}
	return b.String()
}
