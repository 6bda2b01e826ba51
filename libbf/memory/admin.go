package memory

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// DefaultStaleDays is how long a tier A or B memory may go without a check before review
// lists it.
const DefaultStaleDays = 90

// VerifyReply is a memory checked again.
type VerifyReply struct {
	Ref        string `json:"ref"`
	Title      string `json:"title"`
	Confidence string `json:"confidence"`
	Verified   Check  `json:"verified"`
	Review     string `json:"review,omitempty"`
}

// Verify records that a memory was checked against source: it becomes confirmed and a
// review date moves 30 days on.
func (s *Store) Verify(ctx context.Context, refArg, source string) (*VerifyReply, error) {
	if strings.TrimSpace(source) == "" {
		return nil, inputf("--source", "say what it was checked against, such as --source \"checked against the live box\"")
	}
	lk, _, m, err := s.lockMemory(ctx, refArg)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	now := s.now()
	c := Check{By: source, At: timestamp.Day(now.UTC())}
	m.Verified = append(m.Verified, c)
	m.Confidence, m.Source = confirmed, source
	if m.Review != "" || reviewed(m.Type) {
		m.Review = timestamp.Day(now.AddDate(0, 0, reviewDays))
	}
	if err := s.Write(m); err != nil {
		return nil, err
	}
	return &VerifyReply{Ref: m.Ref, Title: m.Title, Confidence: m.Confidence, Verified: c, Review: m.Review}, nil
}

// ForgetReply is a deleted memory.
type ForgetReply struct {
	Ref     string   `json:"ref"`
	Title   string   `json:"title"`
	History string   `json:"history"`
	Unlink  []string `json:"unlinked,omitempty"` // corrections whose supersedes link to it was dropped
}

// Forget deletes a memory, keeping its last version in history. A memory that replaced
// others is refused: deleting it would bring back facts withdrawn on purpose.
func (s *Store) Forget(ctx context.Context, refArg string) (*ForgetReply, error) {
	lk, l, m, err := s.lockMemory(ctx, refArg)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	if len(m.Supersedes) > 0 {
		return nil, &Refusal{Reason: "forget", Existing: m.Ref, Flags: []string{"bf remember --supersedes " + m.Ref},
			Message: fmt.Sprintf("%s replaced %s; forgetting it would break those links and bring back facts withdrawn on purpose.\nTo withdraw it, save the current fact as a correction: bf remember --supersedes %s ...",
				m.Ref, strings.Join(m.Supersedes, ", "), m.Ref)}
	}
	now := s.now()
	out := &ForgetReply{Ref: m.Ref, Title: m.Title}
	for _, r := range m.SupersededBy {
		succ := l.ByRef[r]
		if succ == nil {
			continue
		}
		succ.Supersedes = slices.DeleteFunc(succ.Supersedes, func(x string) bool { return x == m.Ref })
		if err := s.Write(succ); err != nil {
			return nil, err
		}
		out.Unlink = append(out.Unlink, succ.Ref)
	}
	// A later memory may take the forgotten one's file name: no pair accepted with this
	// one may pass for a pair accepted with that one.
	for _, other := range l.All {
		if other != m && slices.Contains(other.DistinctFrom, m.Ref) {
			other.DistinctFrom = slices.DeleteFunc(other.DistinctFrom, func(x string) bool { return x == m.Ref })
			if err := s.Write(other); err != nil {
				return nil, err
			}
		}
	}
	if out.History, err = s.Remove(m, now); err != nil {
		return nil, fmt.Errorf("%s: cannot remove: %w", m.Ref, err)
	}
	_ = s.forgetUses(ctx, m.Ref)
	return out, nil
}

// lockMemory takes the memory lock, loads the memories and resolves the REF argument refArg,
// for a command that changes that memory; the caller releases the lock, which is held only
// when the error is nil.
func (s *Store) lockMemory(ctx context.Context, refArg string) (*lock.Lock, *Loaded, *Memory, error) {
	lk, err := s.Lock(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	l, err := s.Load()
	if err == nil {
		var m *Memory
		if m, err = l.Resolve(refArg, "REF"); err == nil {
			return lk, l, m, nil
		}
	}
	lk.Release()
	return nil, nil, nil, err
}

// ReviewItem is one memory review lists.
type ReviewItem struct {
	Ref    string `json:"ref"`
	Title  string `json:"title"`
	Type   string `json:"type"`
	Scope  string `json:"scope"`
	Review string `json:"review,omitempty"`
	Last   string `json:"last_checked,omitempty"`
	Days   int    `json:"days,omitempty"`
}

// Duplicate is a group of current memories of one scope about one subject: every memory
// whose title overlaps another's in the group, however the overlaps chain.
type Duplicate struct {
	Scope string   `json:"scope"`
	Refs  []string `json:"refs"`
	// Overlap is the highest title overlap of two memories in the group, in percent.
	Overlap int `json:"overlap"`
}

// ScopeReport compares declared and stored scopes.
type ScopeReport struct {
	Declared   []string       `json:"declared"`
	Stored     map[string]int `json:"stored"`
	Undeclared []string       `json:"undeclared"`
	Unused     []string       `json:"unused"`
	Invalid    []string       `json:"invalid,omitempty"`
}

// reviewLimit is how many items of each list one page of bf review holds.
const reviewLimit = 50

// ReviewTotals counts each list of bf review over every page.
type ReviewTotals struct {
	Due        int `json:"due"`
	Stale      int `json:"stale"`
	Duplicates int `json:"duplicates"`
}

// ReviewReply is one page of what needs a look: items offset to offset+50 of each list.
type ReviewReply struct {
	Notice     string       `json:"notice"`
	Today      string       `json:"today"`
	StaleDays  int          `json:"stale_days"`
	Due        []ReviewItem `json:"due"`
	Stale      []ReviewItem `json:"stale"`
	Duplicates []Duplicate  `json:"duplicates"`
	Total      ReviewTotals `json:"total"`
	// NextOffset is the --offset of the next page, while any list has more; else null.
	NextOffset *int64      `json:"next_offset"`
	Scopes     ScopeReport `json:"scopes"`
	Warnings   []string    `json:"warnings,omitempty"`
}

// Review lists, from offset, due reviews, tier A and B memories nobody re-checked for
// staleDays, the groups of duplicates that slipped in and scopes nobody declared.
func (s *Store) Review(ctx context.Context, staleDays int, offset int64) (*ReviewReply, error) {
	if staleDays < 1 || staleDays > 36500 {
		return nil, inputf("--stale-days", "expected an integer from 1 to 36500")
	}
	if err := reply.CheckOffset(offset); err != nil {
		return nil, inputf("--offset", "%s", err)
	}
	l, err := s.Load()
	if err != nil {
		return nil, err
	}
	now := s.now()
	today := timestamp.Day(now.UTC())
	out := &ReviewReply{Notice: notice, Today: today, StaleDays: staleDays, Warnings: l.Warnings}
	var live []*Memory
	for _, m := range l.All {
		if len(m.SupersededBy) == 0 {
			live = append(live, m)
		}
	}
	var due, stale []ReviewItem
	for _, m := range live {
		it := ReviewItem{Ref: m.Ref, Title: m.Title, Type: m.Type, Scope: m.Scope, Review: m.Review}
		if m.Review != "" && m.Review <= today {
			due = append(due, it)
		}
		t := m.Tier().Name
		if t != "A" && t != "B" {
			continue
		}
		last := timestamp.Day(m.Saved.UTC())
		for _, v := range m.Verified {
			if v.At > last {
				last = v.At
			}
		}
		lt, _ := parseDay(last)
		days := int(math.Floor(now.Sub(lt).Hours() / 24))
		if days >= staleDays {
			it.Last, it.Days = last, days
			stale = append(stale, it)
		}
	}
	slices.SortFunc(due, func(a, b ReviewItem) int { return cmp.Or(cmp.Compare(a.Review, b.Review), cmp.Compare(a.Ref, b.Ref)) })
	slices.SortFunc(stale, func(a, b ReviewItem) int { return cmp.Or(cmp.Compare(b.Days, a.Days), cmp.Compare(a.Ref, b.Ref)) })
	dups := duplicateGroups(live)
	out.Total = ReviewTotals{Due: len(due), Stale: len(stale), Duplicates: len(dups)}
	more := false
	page := func(n int) (int, int) {
		from := int(min(offset, int64(n)))
		to := min(from+reviewLimit, n)
		more = more || to < n
		return from, to
	}
	from, to := page(len(due))
	out.Due = append([]ReviewItem{}, due[from:to]...)
	from, to = page(len(stale))
	out.Stale = append([]ReviewItem{}, stale[from:to]...)
	from, to = page(len(dups))
	out.Duplicates = append([]Duplicate{}, dups[from:to]...)
	out.NextOffset = reply.NextOffset(offset, reviewLimit, more)
	out.Scopes = s.scopeReport(l)
	return out, nil
}

// duplicateGroups joins the current memories of each scope whose titles overlap (the same
// identity, or titles of five words or more sharing half their words) into groups: one
// per cluster, however many pairs it holds. A pair saved on purpose (--allow-duplicate,
// recorded in distinct-from) is no overlap. Groups are ordered by their first ref.
func duplicateGroups(live []*Memory) []Duplicate {
	words := make([][]string, len(live))
	ids := make([]string, len(live))
	for i, m := range live {
		words[i], ids[i] = titleWords(m.Title), m.Identity()
	}
	parent := make([]int, len(live))
	best := make([]float64, len(live)) // highest overlap in the group, kept at its root
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for i, a := range live {
		for j := i + 1; j < len(live); j++ {
			b := live[j]
			if a.Scope != b.Scope || slices.Contains(a.DistinctFrom, b.Ref) || slices.Contains(b.DistinctFrom, a.Ref) {
				continue
			}
			o := wordOverlap(words[i], words[j])
			long := len(words[i]) >= guardMinWords && len(words[j]) >= guardMinWords
			if ids[i] != ids[j] && !(long && o >= guardOverlap) {
				continue
			}
			ri, rj := root(i), root(j)
			if ri != rj {
				parent[rj] = ri
				best[ri] = max(best[ri], best[rj])
			}
			best[ri] = max(best[ri], o)
		}
	}
	members := map[int][]string{}
	for i, m := range live {
		members[root(i)] = append(members[root(i)], m.Ref)
	}
	var out []Duplicate
	for r, refs := range members {
		if len(refs) < 2 {
			continue
		}
		slices.Sort(refs)
		out = append(out, Duplicate{Scope: live[r].Scope, Refs: refs, Overlap: int(math.Round(best[r] * 100))})
	}
	slices.SortFunc(out, func(a, b Duplicate) int { return cmp.Compare(a.Refs[0], b.Refs[0]) })
	return out
}

// parseDay reads a YYYY-MM-DD day as UTC midnight, the one day format of memory fields.
func parseDay(s string) (time.Time, error) { return time.Parse("2006-01-02", s) }

// scopeReport compares the scopes bf.yaml declares with those stored.
func (s *Store) scopeReport(l *Loaded) ScopeReport {
	r := ScopeReport{Declared: []string{}, Stored: map[string]int{}, Undeclared: []string{}, Unused: []string{}}
	declared := map[string]bool{DefaultScope: true}
	if mc := s.Brain.Config.Memory; mc != nil {
		for _, sc := range mc.Scopes {
			if err := checkScope(sc); err != nil {
				r.Invalid = append(r.Invalid, sc)
				continue
			}
			r.Declared = append(r.Declared, sc)
			declared[sc] = true
		}
	}
	for _, m := range l.All {
		r.Stored[m.Scope]++
	}
	for _, sc := range slices.Sorted(maps.Keys(r.Stored)) {
		if !declared[sc] {
			r.Undeclared = append(r.Undeclared, sc)
		}
	}
	for _, sc := range r.Declared {
		if r.Stored[sc] == 0 {
			r.Unused = append(r.Unused, sc)
		}
	}
	return r
}

// ScopeReply lists scopes after a declaration.
type ScopeReply struct {
	Added  []string    `json:"added,omitempty"`
	Scopes ScopeReport `json:"scopes"`
}

// Scope declares scopes in bf.yaml (memory.scopes) and reports declared against stored.
func (s *Store) Scope(ctx context.Context, add []string) (*ScopeReply, error) {
	for _, sc := range add {
		if err := checkScope(sc); err != nil {
			return nil, inputf("SCOPE", "%s", err)
		}
	}
	out := &ScopeReply{}
	if len(add) > 0 {
		lk, err := s.Lock(ctx)
		if err != nil {
			return nil, err
		}
		defer lk.Release()
		cfg := s.Brain.Config
		if cfg.Memory == nil {
			cfg.Memory = &config.Memory{}
		}
		for _, sc := range add {
			if sc != DefaultScope && !slices.Contains(cfg.Memory.Scopes, sc) {
				cfg.Memory.Scopes = append(cfg.Memory.Scopes, sc)
				out.Added = append(out.Added, sc)
			}
		}
		if len(out.Added) > 0 {
			file := filepath.Join(s.Brain.Root, config.FileName)
			src, err := os.ReadFile(file)
			if err != nil {
				return nil, fmt.Errorf("bf.yaml: cannot declare the scopes: %w", err)
			}
			var fresh []string // out.Added less what another process declared meanwhile
			if now, err := config.Parse(config.FileName, src); err == nil && now.Memory != nil {
				for _, sc := range out.Added {
					if !slices.Contains(now.Memory.Scopes, sc) {
						fresh = append(fresh, sc)
					}
				}
			} else {
				fresh = out.Added
			}
			data, err := config.AddScopes(src, fresh)
			if err != nil {
				return nil, fmt.Errorf("bf.yaml: cannot declare the scopes: %w", err)
			}
			if err := durable.WriteFile(file, data, 0o644); err != nil {
				return nil, err
			}
		}
	}
	l, err := s.Load()
	if err != nil {
		return nil, err
	}
	out.Scopes = s.scopeReport(l)
	return out, nil
}
