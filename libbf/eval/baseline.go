package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxBaselineBytes bounds a baseline file.
const maxBaselineBytes = 16 << 20

// maxBaselineCases is the most cases a bf eval reply can hold.
const maxBaselineCases = maxSuites * maxCases

// Baseline failures.
var (
	errBaselineFile  = fmt.Errorf("baseline must be a readable regular file of at most %d bytes, not a symlink", maxBaselineBytes)
	errBaselineShape = errors.New("baseline is not a bf eval reply; save one with bf eval > FILE")
)

type caseKey struct{ suite, name string }

// outcome is one case of a previous bf eval reply; its other fields are diagnostics.
type outcome struct {
	passed bool
	rank   map[string]*int
}

// loadBaseline reads a saved bf eval reply, keyed by suite and case name. A leading ~ is
// expanded: --baseline=~/x.json reaches bf unexpanded, since shells expand only a word's
// leading tilde.
func loadBaseline(file string) (map[caseKey]*outcome, error) {
	if file == "~" || strings.HasPrefix(file, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, errBaselineFile
		}
		file = filepath.Join(home, file[1:])
	}
	data, err := readBaseline(file)
	if err != nil {
		return nil, errBaselineFile
	}
	return parseBaseline(data)
}

// readBaseline reads a regular file without following a symlink or waiting on a FIFO.
func readBaseline(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errBaselineFile
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBaselineBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBaselineBytes {
		return nil, errBaselineFile
	}
	return data, nil
}

// parseBaseline decodes a bf eval reply strictly in the fields compared: each case's
// suite, name, passed and rank (ref → a position from 1, or null).
func parseBaseline(data []byte) (map[caseKey]*outcome, error) {
	var doc struct {
		Cases *[]struct {
			Suite  *string         `json:"suite"`
			Name   *string         `json:"name"`
			Passed *bool           `json:"passed"`
			Rank   map[string]*int `json:"rank"`
		} `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil || dec.More() || doc.Cases == nil {
		return nil, errBaselineShape
	}
	if len(*doc.Cases) > maxBaselineCases {
		return nil, errBaselineShape
	}
	out := map[caseKey]*outcome{}
	for _, c := range *doc.Cases {
		if c.Suite == nil || c.Name == nil || c.Passed == nil {
			return nil, errBaselineShape
		}
		for _, n := range c.Rank {
			if n != nil && *n < 1 {
				return nil, errBaselineShape
			}
		}
		out[caseKey{*c.Suite, *c.Name}] = &outcome{passed: *c.Passed, rank: c.Rank}
	}
	return out, nil
}

// compare lists the cases that regressed (a pass became a failure, or an expected ref
// ranks lower, a missing ref ranking below every position) and those that improved (a
// failure passes, or ranks moved with none lower). Cases absent from the baseline are
// new and listed in neither.
func compare(results []*Result, previous map[caseKey]*outcome) (regressions, improvements []*Change) {
	regressions, improvements = []*Change{}, []*Change{}
	for _, r := range results {
		before := previous[caseKey{r.Suite, r.Name}]
		if before == nil {
			continue
		}
		worse, moved := false, false
		for ref, now := range r.Rank {
			old, known := before.rank[ref]
			if !known || sameRank(old, now) {
				continue
			}
			moved = true
			if position(now) > position(old) {
				worse = true
			}
		}
		ch := &Change{Suite: r.Suite, Name: r.Name, Passed: r.Passed, Rank: r.Rank,
			Baseline: Before{Passed: before.passed}}
		if len(before.rank) > 0 {
			ch.Baseline.Rank = before.rank
		}
		switch {
		case (before.passed && !r.Passed) || worse:
			regressions = append(regressions, ch)
		case (r.Passed && !before.passed) || moved:
			improvements = append(improvements, ch)
		}
	}
	return regressions, improvements
}

func sameRank(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// position is a rank as a number: a missing ref ranks below every position.
func position(n *int) float64 {
	if n == nil {
		return math.Inf(1)
	}
	return float64(*n)
}
