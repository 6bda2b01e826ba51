// Package eval answers bf eval: it runs the brain owner's retrieval suites (evals/*.yaml)
// against bf search and bf read, offline and without running any program, and reports
// which cases hold, a mean reciprocal rank, and what changed since a saved reply.
//
// A suite states cases: a search (query, with an optional scope and limit) or a read (a
// ref, "" for home), and what the answer must hold: refs to expect or forbid, text
// fragments, or no refs at all (empty). Suites are loaded and checked before any case
// runs, so a malformed suite fails the whole run naming the suite and the field.
//
// How a case is judged:
//   - A search runs to depth 50, following next_offset like a client; the case's own
//     results are its first limit items, and each expected ref is ranked within the 50.
//     Text is matched against those results' titles and excerpts.
//   - A read assembles paged exact reads, checking that every page names the same
//     sha256. Its refs are every object with a string ref anywhere in the reply; its text
//     is every string value but the notice. A read that finds nothing yields an empty
//     reply, so empty: true can assert absence; a read that could not look everywhere
//     (not found in the readable evidence) fails the case instead.
//   - A plain ref names the evaluated brain (the first selected); items of a referenced
//     brain match only by their bf:// address. A whole-note ref (a note path without
//     #section) matches any of its sections.
//   - A case passes with nothing missing, forbidden or absent, no problems and no stale
//     brains, and, for empty, no refs.
package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
)

// depth is how deep a search case ranks its expected refs, past its limit, so the MRR
// still sees a ref dropping below the limit.
const depth = 50

// Request is one evaluation.
type Request struct {
	// Path is a folder of suites or one .yaml/.yml suite, relative to the brain root;
	// "" means defaultPath.
	Path string
	// Baseline is a saved bf eval reply to compare with ("" for none); ~ is expanded.
	Baseline string
	// Brains are the selected brains: the evaluated brain first, then the brains it
	// references, which its searches and reads include.
	Brains []*brain.Brain
	// Problems are the brains selection skipped.
	Problems []brain.Problem
	// Now is the time periods end at; zero means time.Now().
	Now time.Time
	// Location is the local time zone; nil means time.Local.
	Location *time.Location
}

// Reply is the reply of bf eval; see MarshalJSON for its JSON shape.
type Reply struct {
	Passed bool
	// Score is "P/N": passed cases over all cases.
	Score string
	// MRR is the mean reciprocal rank over search cases with expect, rounded to 4
	// decimals; nil when there is no such case.
	MRR   *float64
	Cases []*Result
	// Regressions and Improvements compare with the baseline; both nil without one.
	Regressions, Improvements []*Change
}

// Result is the outcome of one case.
type Result struct {
	Suite  string
	Name   string
	Passed bool
	// Rank maps each expected ref of a search case to its 1-based position within Depth
	// results, or nil when it is missing; nil for other cases.
	Rank map[string]*int
	// Error is why the case could not run; the case then fails with nothing else.
	Error string
	// Missing, Forbidden, Absent and Returned explain a failed case.
	Missing, Forbidden, Absent, Returned []string
	// Problems and Stale are the reply's, when it had any.
	Problems []reply.Problem
	Stale    []string
}

// Change is a case that got worse or better than in the baseline.
// Its fields are in the order of their sorted JSON keys.
type Change struct {
	Baseline Before          `json:"baseline"`
	Name     string          `json:"name"`
	Passed   bool            `json:"passed"`
	Rank     map[string]*int `json:"rank,omitempty"`
	Suite    string          `json:"suite"`
}

// Before is a case as the baseline reports it.
type Before struct {
	Passed bool            `json:"passed"`
	Rank   map[string]*int `json:"rank,omitempty"`
}

// MarshalJSON prints the reply with sorted keys: passed, score, mrr when some case is
// ranked, cases, and regressions and improvements (possibly empty lists) when compared
// with a baseline.
func (r *Reply) MarshalJSON() ([]byte, error) {
	m := map[string]any{"passed": r.Passed, "score": r.Score, "cases": nonNil(r.Cases)}
	if r.MRR != nil {
		m["mrr"] = *r.MRR
	}
	if r.Regressions != nil || r.Improvements != nil {
		m["regressions"] = nonNil(r.Regressions)
		m["improvements"] = nonNil(r.Improvements)
	}
	return marshal(m)
}

// MarshalJSON prints a case: suite, name and passed; rank for a ranked search case; and
// for a failed case either error, or missing, forbidden, absent and returned (lists,
// possibly empty) with the reply's problems and stale when present.
func (r *Result) MarshalJSON() ([]byte, error) {
	m := map[string]any{"suite": r.Suite, "name": r.Name, "passed": r.Passed}
	if r.Error != "" {
		m["error"] = r.Error
		return marshal(m)
	}
	if r.Rank != nil {
		m["rank"] = r.Rank
	}
	if !r.Passed {
		m["missing"] = nonNil(r.Missing)
		m["forbidden"] = nonNil(r.Forbidden)
		m["absent"] = nonNil(r.Absent)
		m["returned"] = nonNil(r.Returned)
		if r.Problems != nil {
			m["problems"] = r.Problems
		}
		if r.Stale != nil {
			m["stale"] = r.Stale
		}
	}
	return marshal(m)
}

// marshal encodes like reply.Marshal, without HTML escapes: a Marshaler's output is
// copied as it is, so escaping here would show in the printed reply.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Run evaluates the suites of the first selected brain.
//
// A bad --path or --baseline fails before any suite is read (the path as
// *reply.InputError). Suites are loaded next: none found, more than maxSuites, or a
// malformed one (*suiteError, or a *config.VersionError for a wrong version) fails the
// run. Then every case runs; a case that cannot run fails with its error while the others
// go on. The reply's Passed is false when any case failed: bf eval then exits 1.
func Run(ctx context.Context, req Request) (*Reply, error) {
	if len(req.Brains) == 0 {
		return nil, errors.New("bf eval needs one brain; pass --brain")
	}
	if req.Now.IsZero() {
		req.Now = time.Now()
	}
	if req.Location == nil {
		req.Location = time.Local
	}
	b := req.Brains[0]
	rel, err := cleanSuitePath(b.Root, req.Path)
	if err != nil {
		return nil, err
	}
	var previous map[caseKey]*outcome
	if req.Baseline != "" {
		if previous, err = loadBaseline(req.Baseline); err != nil {
			return nil, err
		}
	}
	names, err := findSuites(b.Root, rel)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has no suites; add evals/retrieval.yaml before running bf eval", rel)
	}
	if len(names) > maxSuites {
		return nil, fmt.Errorf("evaluation exceeds %d suites", maxSuites)
	}
	var suites []*suite
	for _, name := range names {
		s, err := loadSuite(b.Root, name)
		if err != nil {
			return nil, err
		}
		suites = append(suites, s)
	}

	out := &Reply{}
	var reciprocal []float64
	passed := 0
	for _, s := range suites {
		for _, c := range s.Cases {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			res, rr, ranked := runCase(ctx, req, s.Path, c)
			if ranked {
				reciprocal = append(reciprocal, rr)
			}
			if res.Passed {
				passed++
			}
			out.Cases = append(out.Cases, res)
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	out.Passed = passed == len(out.Cases)
	out.Score = fmt.Sprintf("%d/%d", passed, len(out.Cases))
	if len(reciprocal) > 0 {
		sum := 0.0
		for _, x := range reciprocal {
			sum += x
		}
		mrr := math.Round(sum/float64(len(reciprocal))*1e4) / 1e4
		out.MRR = &mrr
	}
	if previous != nil {
		out.Regressions, out.Improvements = compare(out.Cases, previous)
	}
	return out, nil
}

// runCase runs one case. It returns the result, its reciprocal rank (0 for a miss or an
// error) and whether the case counts in the MRR: a search case with expect.
func runCase(ctx context.Context, req Request, suite string, c Case) (*Result, float64, bool) {
	res := &Result{Suite: suite, Name: c.Name}
	ranked := c.Read == nil && len(c.Expect) > 0
	var a *answer
	var err error
	if c.Read != nil {
		a, err = readAnswer(ctx, req, *c.Read)
	} else {
		a, err = searchAnswer(ctx, req, c)
	}
	if err != nil {
		// An error result carries no rank; a ranked case still counts 0 in the MRR.
		res.Error = err.Error()
		return res, 0, ranked
	}
	for _, e := range c.Expect {
		if !matchesAny(e, a.matches) {
			res.Missing = append(res.Missing, e)
		}
	}
	for _, f := range c.Forbid {
		if matchesAny(f, a.matches) {
			res.Forbidden = append(res.Forbidden, f)
		}
	}
	for _, t := range c.Text {
		if !containsFold(a.text, t) {
			res.Absent = append(res.Absent, t)
		}
	}
	res.Problems, res.Stale = a.problems, a.stale
	res.Returned = a.refs
	res.Passed = len(res.Missing) == 0 && len(res.Forbidden) == 0 && len(res.Absent) == 0 &&
		len(a.problems) == 0 && len(a.stale) == 0 && (!c.Empty || len(a.refs) == 0)
	rr := 0.0
	if ranked {
		res.Rank = map[string]*int{}
		for _, e := range c.Expect {
			res.Rank[e] = nil
			for i, pair := range a.ranking {
				if matchesAny(e, pair) {
					n := i + 1
					res.Rank[e] = &n
					rr = math.Max(rr, 1/float64(n))
					break
				}
			}
		}
	}
	return res, rr, ranked
}
