package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/bfgo/bf/bench/internal/measure"
)

// ratio formats a over b: "0.44×", "3.1×", "27×".
func ratio(a, b float64) string {
	if a <= 0 || b <= 0 || math.IsNaN(a) || math.IsNaN(b) {
		return ""
	}
	r := a / b
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f×", r)
	case r >= 1:
		return fmt.Sprintf("%.1f×", r)
	default:
		return fmt.Sprintf("%.2f×", r)
	}
}

func median(s *measure.Summary) float64 {
	if s == nil {
		return math.NaN()
	}
	return s.Median
}

func p95(s *measure.Summary) float64 {
	if s == nil {
		return math.NaN()
	}
	return s.P95
}

func group(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// speedup notes how many times faster bf is than rg, when rg ran.
func speedup(rg, bf float64) string {
	if r := ratio(rg, bf); r != "" {
		return "rg ÷ bf = " + r
	}
	return ""
}

// targets compares the run with the goals set for the large brain on a 2-core machine.
func targets(r *Result) []Target {
	var ts []Target
	// below judges v against limit as goal states it: "< limit" or "≤ limit".
	below := func(name, goal string, v, limit float64, show func(float64) string) {
		met := v < limit || v == limit && strings.HasPrefix(goal, "≤")
		t := Target{Name: name, Goal: goal, Value: show(v), Met: met, Ratio: v / limit}
		if t.Met {
			t.Margin = fmt.Sprintf("met, %s under", ratio(limit, v))
		} else {
			t.Margin = fmt.Sprintf("missed, %s over", ratio(v, limit))
		}
		ts = append(ts, t)
	}
	warm := r.Search.All.Median
	below("warm search, median", "< 50 ms", warm, 50, measure.Millis)
	if rg := median(r.Search.RG); !math.IsNaN(rg) {
		v := rg / warm
		t := Target{Name: "warm search, speed-up over rg", Goal: "≥ 10×", Value: ratio(rg, warm), Met: v >= 10, Ratio: v / 10}
		if t.Met {
			t.Margin = fmt.Sprintf("met, %s the goal", ratio(v, 10))
		} else {
			t.Margin = fmt.Sprintf("missed, %s of the goal", ratio(v, 10))
		}
		ts = append(ts, t)
	} else {
		ts = append(ts, Target{Name: "warm search, speed-up over rg", Goal: "≥ 10×", Value: "n/a (install ripgrep)", Margin: "not measured"})
	}
	if r.Search.Fused != nil {
		fused := r.Search.Fused.Median
		below("fused search, median", "< 2× warm search", fused/warm, 2,
			func(v float64) string { return fmt.Sprintf("%.2f× (%s)", v, measure.Millis(fused)) })
	}
	below("first search after editing one note", "< 2× the same search warm", r.Refresh.AfterEditRatio, 2,
		func(v float64) string {
			return fmt.Sprintf("%.2f× (%s)", v, measure.Millis(r.Refresh.AfterEdit.Median))
		})
	below("full build, wall", "< 60 s", r.Build.Wall.Median, 60_000, measure.Millis)
	below("full build, peak RSS", "< 500 MiB", float64(r.Build.PeakRSS), 500<<20,
		func(v float64) string { return measure.Bytes(int64(v)) })
	home := math.NaN()
	for _, rd := range r.Reads {
		if rd.Ref == "" {
			home = rd.BF.Median
		}
	}
	below("home page read, median", "< 100 ms", home, 100, measure.Millis)
	if raw := median(r.Build.SQLiteFTS); !math.IsNaN(raw) {
		below("full build ÷ raw FTS5 build", "≤ 2.5×", r.Build.Wall.Median/raw, 2.5,
			func(v float64) string { return fmt.Sprintf("%.2f×", v) })
	}
	if r.Search.Watched != nil {
		watchedTargets(r, &ts, below)
	}
	return ts
}

// watchedTargets adds the goals of commands answered by a running bf watch --cache: per
// query kind against sqlite3 and rg, and the fixed cost of reads.
func watchedTargets(r *Result, ts *[]Target, below func(name, goal string, v, limit float64, show func(float64) string)) {
	// worst is the query kind with the largest f (NaN when no kind has one).
	worst := func(f func(k KindSummary) float64) (float64, string) {
		v, name := math.NaN(), ""
		for _, k := range r.Search.PerKind {
			if k.Watched == nil {
				continue
			}
			if x := f(k); !math.IsNaN(x) && (math.IsNaN(v) || x > v) {
				v, name = x, k.Kind
			}
		}
		return v, name
	}
	if v, kind := worst(func(k KindSummary) float64 { return k.Watched.BF.Median / median(k.Watched.SQLite) }); !math.IsNaN(v) {
		below("warm search, watcher, worst kind: median", "≤ 1.5× sqlite3", v, 1.5,
			func(v float64) string { return fmt.Sprintf("%.2f× (%s)", v, kind) })
	}
	if v, kind := worst(func(k KindSummary) float64 { return k.Watched.BF.P95 / p95(k.Watched.SQLite) }); !math.IsNaN(v) {
		below("warm search, watcher, worst kind: p95", "≤ 2× sqlite3's p95", v, 2,
			func(v float64) string { return fmt.Sprintf("%.2f× (%s)", v, kind) })
	}
	// The speed-up over rg: the worst kind is the one with the smallest.
	if v, kind := worst(func(k KindSummary) float64 {
		if k.Watched.RG == nil {
			return math.NaN()
		}
		return k.Watched.BF.Median / k.Watched.RG.Median
	}); !math.IsNaN(v) {
		at := 1 / v
		t := Target{Name: "warm search, watcher, worst kind: speed-up over rg", Goal: "≥ 10×",
			Value: fmt.Sprintf("%.1f× (%s)", at, kind), Met: at >= 10, Ratio: at / 10}
		if t.Met {
			t.Margin = fmt.Sprintf("met, %s the goal", ratio(at, 10))
		} else {
			t.Margin = fmt.Sprintf("missed, %s of the goal", ratio(at, 10))
		}
		*ts = append(*ts, t)
	}
	below("warm search, watcher, p95 of all queries", "< 100 ms", r.Search.Watched.P95, 100, measure.Millis)
	page, slowest := "", math.NaN()
	for _, rd := range r.Reads {
		switch {
		case rd.Watched == nil:
		case rd.Name == "record":
			below("read of a record, watcher, median", "≤ 20 ms", rd.Watched.BF.Median, 20, measure.Millis)
		case math.IsNaN(slowest) || rd.Watched.BF.Median > slowest:
			page, slowest = rd.Name, rd.Watched.BF.Median
		}
	}
	if !math.IsNaN(slowest) {
		below("slowest page read, watcher, median", "≤ 50 ms", slowest, 50,
			func(v float64) string { return measure.Millis(v) + " (" + page + ")" })
	}
}

// markdown renders a run as the tables of bench/README.md.
func markdown(r *Result) string {
	var b strings.Builder
	g := r.Generator.Stats
	recs := 0
	for _, n := range g.Records {
		recs += n
	}
	m := r.Machine
	fmt.Fprintf(&b, "### %s brain: %s notes, %s records (%s of files)\n\n", r.Size, group(g.Notes), group(recs), measure.Bytes(g.Bytes))
	tools := []string{}
	if m.RG != "" {
		tools = append(tools, m.RG)
	} else {
		tools = append(tools, "rg n/a (install ripgrep)")
	}
	if m.SQLite3 != "" {
		tools = append(tools, m.SQLite3)
	} else {
		tools = append(tools, "sqlite3 n/a (install sqlite3)")
	}
	fmt.Fprintf(&b, "%d cores (%s), %s, %s, bf %s, %s; %s. One process per command, warm file cache; times are medians.\n\n",
		m.Cores, m.CPU, m.OS, m.Go, m.Commit, strings.Join(tools, ", "), r.When)

	// A missing tool says how to get its figures.
	missing := func(s, tool, have string) string {
		if s == "n/a" && have == "" {
			return "n/a (install " + tool + ")"
		}
		return s
	}
	b.WriteString("| measure | bf | rg | sqlite3 | bf ÷ rg | bf ÷ sqlite3 | notes |\n| --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	row := func(name, bf, rg, sq, rrg, rsq, note string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, bf,
			missing(rg, "ripgrep", m.RG), missing(sq, "sqlite3", m.SQLite3), rrg, rsq, note)
	}
	bw := r.Build.Wall.Median
	row(fmt.Sprintf("full build, wall (%d runs)", r.Build.Wall.N), measure.Millis(bw),
		measure.Millis(median(r.Build.RGReadAll)), measure.Millis(median(r.Build.SQLiteFTS)),
		ratio(bw, median(r.Build.RGReadAll)), ratio(bw, median(r.Build.SQLiteFTS)),
		fmt.Sprintf("%s files, %d skipped; rg reads every file once, sqlite3 only indexes the same passages in FTS5", group(r.Build.ReplyFiles), r.Build.ReplySkipped))
	sqRSS := ""
	if r.Build.SQLiteRSS > 0 {
		sqRSS = measure.Bytes(r.Build.SQLiteRSS)
	}
	row("full build, peak RSS", measure.Bytes(r.Build.PeakRSS), "", sqRSS, "", ratio(float64(r.Build.PeakRSS), float64(r.Build.SQLiteRSS)),
		fmt.Sprintf("max of runs %s", measure.Bytes(r.Build.PeakRSSMax)))
	warm := r.Search.All.Median
	rf := r.Refresh
	row(fmt.Sprintf("first search after editing one note (%d edits)", rf.AfterEdit.N), measure.Millis(rf.AfterEdit.Median), "", "", "", "",
		fmt.Sprintf("%s the same query warm (%s); %s the warm median", ratio(rf.AfterEdit.Median, rf.WarmSameQuery.Median), measure.Millis(rf.WarmSameQuery.Median), ratio(rf.AfterEdit.Median, warm)))
	row(fmt.Sprintf("first search after adding 100 records to one source (%d batches)", rf.AfterAdd.N), measure.Millis(rf.AfterAdd.Median), "", "", "", "",
		fmt.Sprintf("%s the same query warm; %s the warm median", ratio(rf.AfterAdd.Median, rf.WarmSameQuery.Median), ratio(rf.AfterAdd.Median, warm)))
	s := r.Search
	row(fmt.Sprintf("warm search, median (%d queries × %d)", len(s.Queries), s.Reps), measure.Millis(warm), measure.Millis(median(s.RG)), measure.Millis(median(s.SQLite)),
		ratio(warm, median(s.RG)), ratio(warm, median(s.SQLite)), speedup(median(s.RG), warm))
	row("warm search, p95", measure.Millis(s.All.P95), measure.Millis(p95(s.RG)), measure.Millis(p95(s.SQLite)),
		ratio(s.All.P95, p95(s.RG)), ratio(s.All.P95, p95(s.SQLite)), fmt.Sprintf("bf peak RSS %s", measure.Bytes(s.MaxRSS)))
	if s.Fused != nil {
		row(fmt.Sprintf("fused search, median (same queries × %d)", s.Reps), measure.Millis(s.Fused.Median), "", "", "", "",
			fmt.Sprintf("`bf search --fused`, run right after each word search: %s the warm median; p95 %s", ratio(s.Fused.Median, warm), measure.Millis(s.Fused.P95)))
	}
	if w := s.Watched; w != nil {
		rg := s.WatchedRG
		row(fmt.Sprintf("warm search, watcher, median (same queries × %d)", s.Reps), measure.Millis(w.Median), measure.Millis(median(rg)), measure.Millis(median(s.WatchedSQLite)),
			ratio(w.Median, median(rg)), ratio(w.Median, median(s.WatchedSQLite)), "with `bf watch --cache` running, so no command lists the brain; sqlite3 and rg again in the same passes; "+speedup(median(rg), w.Median))
		row("warm search, watcher, p95", measure.Millis(w.P95), measure.Millis(p95(rg)), measure.Millis(p95(s.WatchedSQLite)),
			ratio(w.P95, p95(rg)), ratio(w.P95, p95(s.WatchedSQLite)), "")
	}
	for _, rd := range r.Reads {
		name := "read " + rd.Name
		if rd.Backlinks > 0 {
			name += fmt.Sprintf(" (%s backlinks)", group(rd.Backlinks))
		}
		ref := rd.Ref
		if ref == "" {
			ref = "(none)"
		}
		row(name, measure.Millis(rd.BF.Median), measure.Millis(median(rd.RG)), measure.Millis(median(rd.SQLite)),
			ratio(rd.BF.Median, median(rd.RG)), ratio(rd.BF.Median, median(rd.SQLite)), fmt.Sprintf("`%s`, %s reply", ref, measure.Bytes(int64(rd.Bytes))))
		if w := rd.Watched; w != nil {
			row("read "+rd.Name+", watcher", measure.Millis(w.BF.Median), measure.Millis(median(rd.RG)), measure.Millis(median(w.SQLite)),
				ratio(w.BF.Median, median(rd.RG)), ratio(w.BF.Median, median(w.SQLite)), "with `bf watch --cache` running")
		}
	}
	row("cache size on disk", measure.Bytes(r.Cache.Bytes), "", "", "", "",
		fmt.Sprintf("%s the brain's files; %s after the edits and additions", ratio(float64(r.Cache.Bytes), float64(r.Cache.BrainBytes)), measure.Bytes(r.Cache.BytesAtEnd)))

	b.WriteString("\n" + kindTable(s))
	b.WriteString(lspTable(r.LSP))

	fmt.Fprintf(&b, "\n| target (set for the large brain, 2 cores) | goal | %s | |\n| --- | --- | ---: | --- |\n", r.Size)
	for _, t := range r.Targets {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Name, t.Goal, t.Value, t.Margin)
	}
	if len(r.Problems) > 0 {
		b.WriteString("\nProblems:\n\n")
		for _, p := range r.Problems {
			fmt.Fprintf(&b, "- %s\n", p)
		}
	}
	return b.String()
}

// kindTable is the warm search medians per query kind, beside rg and sqlite3.
func kindTable(s SearchResult) string {
	var b strings.Builder
	b.WriteString("| query kind | queries | bf median | bf --fused median | rg median | sqlite3 median | rg ÷ bf | bf ÷ sqlite3 |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, k := range s.PerKind {
		rg, sq := "n/a", "n/a"
		if k.RG > 0 {
			rg = measure.Millis(k.RG)
		}
		if k.SQLite > 0 {
			sq = measure.Millis(k.SQLite)
		}
		fu := "n/a"
		if k.Fused > 0 {
			fu = measure.Millis(k.Fused)
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", k.Kind, k.N, measure.Millis(k.BF), fu, rg, sq,
			ratio(k.RG, k.BF), ratio(k.BF, k.SQLite))
	}
	if s.Watched == nil {
		return b.String()
	}
	b.WriteString("\nWith `bf watch --cache` running (sqlite3 and rg again in the same passes):\n\n")
	b.WriteString("| query kind | bf median | sqlite3 median | bf ÷ sqlite3 | bf p95 | sqlite3 p95 | bf ÷ sqlite3, p95 | rg ÷ bf |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, k := range s.PerKind {
		w := k.Watched
		if w == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k.Kind, measure.Millis(w.BF.Median), measure.Millis(median(w.SQLite)),
			ratio(w.BF.Median, median(w.SQLite)), measure.Millis(w.BF.P95), measure.Millis(p95(w.SQLite)), ratio(w.BF.P95, p95(w.SQLite)), ratio(median(w.RG), w.BF.Median))
	}

	return b.String()
}
