package main

import (
	"path/filepath"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/measure"
)

// watchedIf runs watched when -watched asks for it.
func (b *bench) watchedIf() error {
	if !b.o.watched {
		return nil
	}
	return b.watched()
}

// watched measures the warm searches and reads again while bf watch --cache runs, so no
// command lists the brain: what remains is process start, the sync and the work itself.
// sqlite3 runs beside each, and rg beside each search, in the same passes: a ratio then
// compares runs seconds apart, not passes minutes apart on a machine whose speed drifts.
func (b *bench) watched() error {
	stop, err := measure.Keep(b.bf, b.work)
	if err != nil {
		return err
	}
	defer stop()
	dbPath := filepath.Join(b.work, ".bf", "index.sqlite")
	sr := &b.res.Search
	qs := gen.Queries(b.plan)
	bfs := make([][]time.Duration, len(qs))
	sqs := make([][]time.Duration, len(qs))
	rgs := make([][]time.Duration, len(qs))
	for rep := 0; rep <= b.o.searchReps; rep++ {
		for i, q := range qs {
			s, err := b.bfRun("search", searchArgs(q)...)
			if err != nil {
				return err
			}
			if rep == 0 && (s.Exit != 0 || items(s.Stdout) != sr.Queries[i].Items) {
				b.problem("bf search %q with a watcher exited %d with %d items (%d without)", q.Text, s.Exit, items(s.Stdout), sr.Queries[i].Items)
			}
			if rep > 0 {
				bfs[i] = append(bfs[i], s.Wall)
			}
			if b.sqlite3 != "" {
				s, err := measure.Run(b.work, b.sqlite3, "-readonly", "-batch", dbPath, sqlFor(q))
				if err != nil {
					return err
				}
				if rep > 0 {
					sqs[i] = append(sqs[i], s.Wall)
				}
			}
			if b.rg != "" {
				s, err := measure.Run(b.work, b.rg, rgArgs(q, b.work)...)
				if err != nil {
					return err
				}
				if rep > 0 {
					rgs[i] = append(rgs[i], s.Wall)
				}
			}
		}
		if rep > 0 {
			logf("  watched pass %d/%d done", rep, b.o.searchReps)
		}
	}
	type acc struct{ bf, sq, rg []time.Duration }
	byKind := map[string]*acc{}
	var all, allSQ, allRG []time.Duration
	for i, q := range qs {
		sr.Queries[i].Watched, sr.Queries[i].WatchedRG = measure.Optional(bfs[i]), measure.Optional(rgs[i])
		all, allSQ, allRG = append(all, bfs[i]...), append(allSQ, sqs[i]...), append(allRG, rgs[i]...)
		if byKind[q.Kind] == nil {
			byKind[q.Kind] = &acc{}
		}
		byKind[q.Kind].bf = append(byKind[q.Kind].bf, bfs[i]...)
		byKind[q.Kind].sq = append(byKind[q.Kind].sq, sqs[i]...)
		byKind[q.Kind].rg = append(byKind[q.Kind].rg, rgs[i]...)
	}
	sr.Watched, sr.WatchedSQLite, sr.WatchedRG = measure.Optional(all), measure.Optional(allSQ), measure.Optional(allRG)
	for k := range sr.PerKind {
		a := byKind[sr.PerKind[k].Kind]
		sr.PerKind[k].Watched = &Pair{BF: measure.Summarize(a.bf), SQLite: measure.Optional(a.sq), RG: measure.Optional(a.rg)}
	}

	if len(b.res.Reads) == 0 {
		return stop() // only the searches were measured
	}
	for k, c := range readCases(b.plan, b.work) {
		var args []string
		if c.Ref != "" {
			args = append(args, "--", c.Ref)
		}
		var bfr, sqr []time.Duration
		for rep := 0; rep <= b.o.readReps; rep++ {
			s, err := b.bfRun("read", args...)
			if err != nil {
				return err
			}
			if rep == 0 && (s.Exit != 0 || len(s.Stdout) != b.res.Reads[k].Bytes) {
				b.problem("bf read %q with a watcher exited %d with %d bytes (%d without)", c.Ref, s.Exit, len(s.Stdout), b.res.Reads[k].Bytes)
			}
			if rep > 0 {
				bfr = append(bfr, s.Wall)
			}
			if b.sqlite3 != "" {
				s, err := measure.Run(b.work, b.sqlite3, "-readonly", "-batch", dbPath, c.sql)
				if err != nil {
					return err
				}
				if rep > 0 {
					sqr = append(sqr, s.Wall)
				}
			}
		}
		p := &Pair{BF: measure.Summarize(bfr), SQLite: measure.Optional(sqr)}
		b.res.Reads[k].Watched = p
		logf("  %s with a watcher: %s", c.Name, measure.Millis(p.BF.Median))
	}
	return stop()
}
