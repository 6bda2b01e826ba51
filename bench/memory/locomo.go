package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/internal/locomo"
	"github.com/bfgo/bf/bench/internal/measure"
	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/memory"
	_ "modernc.org/sqlite"
)

// k is the page every method is scored on: Recall@10 and MRR@10.
const k = 10

// Methods, in the order of the tables.
var methods = []string{"recall", "search", "search --fused", "fts5 bm25, turn text", "fts5 bm25, memory text"}

// title is a turn memory's title: who said it, and the turn's id that keeps titles apart
// (two or three words, under the duplicate guard's five).
func title(t locomo.Turn) string { return t.Speaker + " (" + t.ID + ")" }

// turnText is what a turn's memory says, title and body, as the second baseline indexes it.
func turnText(t locomo.Turn) string { return title(t) + "\n" + t.Text }

// LocomoResult is retrieval quality per method and category.
type LocomoResult struct {
	Conversations []string `json:"conversations"`
	Turns         int      `json:"turns"`
	Type          string   `json:"type"` // the memory type of every turn
	Questions     int      `json:"questions"`
	// Scores[method][category] ("all", "1".."4").
	Scores map[string]map[string]*Score `json:"scores"`
	// ShortPages counts the questions each method answered with fewer than 10 items.
	ShortPages map[string]int `json:"short_pages"`
	// CLISave is the wall time of one bf remember process per turn, for the first turns.
	CLISave *measure.Summary `json:"cli_save,omitempty"`
	// LibrarySaveMS is the mean time of one in-process save (memory.Store.Remember).
	LibrarySaveMS float64 `json:"library_save_ms"`
}

// Score is the mean Recall@10 and MRR@10 over N questions.
type Score struct {
	N      int     `json:"n"`
	Recall float64 `json:"recall_at_10"`
	MRR    float64 `json:"mrr_at_10"`
}

func (s *Score) add(ranked, evidence []string) {
	found, first := 0, 0
	for i, id := range ranked[:min(k, len(ranked))] {
		if slices.Contains(evidence, id) {
			found++
			if first == 0 {
				first = i + 1
			}
		}
	}
	s.N++
	s.Recall += float64(found) / float64(len(evidence))
	if first > 0 {
		s.MRR += 1 / float64(first)
	}
}

func (s *Score) mean() {
	if s.N > 0 {
		s.Recall /= float64(s.N)
		s.MRR /= float64(s.N)
	}
}

func runLocomo(o options, dir string) (*LocomoResult, error) {
	files, _ := locomo.Files(o.data)
	if len(files) == 0 {
		fmt.Printf("LoCoMo data not found in %s; skipped (see bench/README.md).\n", o.data)
		return nil, nil
	}
	slices.Sort(files)
	bf, err := measure.BF(o.bin)
	if err != nil {
		return nil, err
	}
	res := &LocomoResult{Type: o.memoryType, Scores: map[string]map[string]*Score{}, ShortPages: map[string]int{}}
	for _, m := range methods {
		res.Scores[m] = map[string]*Score{"all": {}, "1": {}, "2": {}, "3": {}, "4": {}}
	}
	var cliSaves []time.Duration
	var libTime time.Duration
	libSaves := 0
	for ci, file := range files {
		c, err := locomo.Load(file)
		if err != nil {
			return nil, err
		}
		res.Conversations = append(res.Conversations, c.Name)
		root := filepath.Join(dir, c.Name)
		refs, cli, lib, nlib, err := saveTurns(bf, root, o.memoryType, c, map[bool]int{true: o.cliSaves}[ci == 0])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		cliSaves = append(cliSaves, cli...)
		libTime += lib
		libSaves += nlib
		res.Turns += len(refs)
		if s, err := measure.Run(root, bf, "build"); err != nil || s.Exit != 0 {
			return nil, fmt.Errorf("%s: bf build: %v %s", c.Name, err, s.Stderr)
		}
		textBaseline, err := newBaseline(c, func(t locomo.Turn) string { return t.Text })
		if err != nil {
			return nil, err
		}
		memoryBaseline, err := newBaseline(c, turnText)
		if err != nil {
			return nil, err
		}
		// The questions are asked after the last session, as a person would ask later.
		os.Setenv("BF_NOW", c.Turns[len(c.Turns)-1].At.Add(24*time.Hour).UTC().Format(time.RFC3339))
		for qi, q := range c.Questions {
			if qi%50 == 0 {
				logf("%s: question %d of %d", c.Name, qi+1, len(c.Questions))
			}
			ranked := map[string][]string{}
			for _, m := range methods[:3] {
				if ranked[m], err = askBF(bf, root, m, q.Text, refs); err != nil {
					return nil, fmt.Errorf("%s: %s %q: %w", c.Name, m, q.Text, err)
				}
			}
			if ranked[methods[3]], err = textBaseline.ask(q.Text); err != nil {
				return nil, err
			}
			if ranked[methods[4]], err = memoryBaseline.ask(q.Text); err != nil {
				return nil, err
			}
			for _, m := range methods {
				if len(ranked[m]) < k {
					res.ShortPages[m]++
				}
				res.Scores[m]["all"].add(ranked[m], q.Evidence)
				res.Scores[m][strconv.Itoa(q.Category)].add(ranked[m], q.Evidence)
			}
			res.Questions++
		}
		textBaseline.db.Close()
		memoryBaseline.db.Close()
	}
	os.Unsetenv("BF_NOW")
	for _, byCat := range res.Scores {
		for _, s := range byCat {
			s.mean()
		}
	}
	res.CLISave = measure.Optional(cliSaves)
	if libSaves > 0 {
		res.LibrarySaveMS = float64(libTime.Microseconds()) / 1000 / float64(libSaves)
	}
	return res, nil
}

// saveTurns makes a fresh brain of one conversation: every turn one memory of type typ
// titled by who said it and the turn's id (its body the turn's text), saved as
// the person's own words (--reviewed: a conversation's turns are what its people said,
// not an agent's notes, and fused search leaves unreviewed memories out), with the clock
// at the turn's time. The first cliN turns are saved by one bf remember process each and
// timed; the rest by memory.Store.Remember in this process, the call bf remember makes.
// It returns each memory's ref mapped to its turn's id.
func saveTurns(bf, root, typ string, c *locomo.Conversation, cliN int) (refs map[string]string, cli []time.Duration, lib time.Duration, nlib int, err error) {
	if err := os.RemoveAll(root); err != nil {
		return nil, nil, 0, 0, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, nil, 0, 0, err
	}
	if err := os.WriteFile(filepath.Join(root, "bf.yaml"), []byte("version: 8\nname: locomo-"+strings.TrimPrefix(c.Name, "conv-")+"\n"), 0o644); err != nil {
		return nil, nil, 0, 0, err
	}
	refs = map[string]string{}
	var store *memory.Store
	for i, t := range c.Turns {
		if strings.TrimSpace(t.Text) == "" {
			continue
		}
		if i%200 == 0 {
			logf("%s: saving turn %d of %d", c.Name, i+1, len(c.Turns))
		}
		// The bf remember processes read the clock from BF_NOW; the library call is given it.
		os.Setenv("BF_NOW", t.At.UTC().Format(time.RFC3339))
		at := t.At.UTC().Truncate(time.Second)
		var ref string
		title, body := title(t), t.Text
		if i < cliN {
			s, err := measure.Run(root, bf, "remember", "--type", typ, "--reviewed", "--title", title, "--body", body)
			if err != nil || s.Exit != 0 {
				return nil, nil, 0, 0, fmt.Errorf("bf remember %s: %v %s", t.ID, err, s.Stderr)
			}
			cli = append(cli, s.Wall)
			var r memory.RememberReply
			if err := json.Unmarshal(s.Stdout, &r); err != nil {
				return nil, nil, 0, 0, fmt.Errorf("bf remember %s: %w", t.ID, err)
			}
			ref = r.Ref
		} else {
			if store == nil {
				b, err := brain.Open(root)
				if err != nil {
					return nil, nil, 0, 0, err
				}
				store = &memory.Store{Brain: b}
			}
			store.Now = func() time.Time { return at }
			start := time.Now()
			r, err := store.Remember(context.Background(), memory.RememberRequest{Type: typ, Reviewed: true, Title: title, Body: body})
			if err != nil {
				return nil, nil, 0, 0, fmt.Errorf("remember %s: %w", t.ID, err)
			}
			lib += time.Since(start)
			nlib++
			ref = r.Ref
		}
		refs[ref] = t.ID
	}
	return refs, cli, lib, nlib, nil
}

// askBF runs one bf command for a question and returns the turn ids of its page.
func askBF(bf, root, method, q string, refs map[string]string) ([]string, error) {
	limit := strconv.Itoa(k)
	var args []string
	switch method {
	case "recall":
		args = []string{"recall", "--no-touch", "--limit", limit, q}
	case "search":
		args = []string{"search", "--limit", limit, q}
	case "search --fused":
		args = []string{"search", "--fused", "--limit", limit, q}
	}
	s, err := measure.Run(root, bf, args...)
	if err != nil {
		return nil, err
	}
	if s.Exit != 0 {
		return nil, fmt.Errorf("exit %d: %s", s.Exit, s.Stderr)
	}
	var reply struct {
		Items []struct {
			Ref string `json:"ref"`
		} `json:"items"`
	}
	if err := json.Unmarshal(s.Stdout, &reply); err != nil {
		return nil, err
	}
	var out []string
	for _, it := range reply.Items {
		ref, _, _ := strings.Cut(it.Ref, "#")
		if id, ok := refs[ref]; ok && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// baseline is a plain SQLite FTS5 BM25 over one text per turn: porter unicode61, the
// question's words minus English function words (bf's own list, fold.Parse), OR'd. Over
// the turn's text alone, as LoCoMo's SOURCE describes it, and over what its memory says
// (who said it, the id, the text), which is what bf indexes.
type baseline struct{ db *sql.DB }

func newBaseline(c *locomo.Conversation, text func(locomo.Turn) string) (*baseline, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE turns USING fts5(id UNINDEXED, text, tokenize='porter unicode61')`); err != nil {
		return nil, fmt.Errorf("fts5 baseline: %w", err)
	}
	for _, t := range c.Turns {
		if _, err := db.Exec(`INSERT INTO turns(id, text) VALUES (?, ?)`, t.ID, text(t)); err != nil {
			return nil, fmt.Errorf("fts5 baseline: %w", err)
		}
	}
	return &baseline{db: db}, nil
}

func (b *baseline) ask(q string) ([]string, error) {
	parsed, err := fold.Parse(q)
	if err != nil || len(parsed.Terms) == 0 {
		return nil, nil // no words: nothing to match
	}
	rows, err := b.db.Query(`SELECT id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?`, parsed.Match(), k)
	if err != nil {
		return nil, fmt.Errorf("fts5 baseline %q: %w", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}
