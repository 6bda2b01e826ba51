// Command benchscale measures how bf's costs grow with the size of a brain: the generator's
// brains at 10k, 100k and (by hand) 1M records, each with its full build (time, peak
// memory, cache size), its warm search per query class and the fixed cost every command
// pays (bf read of a record), without and with a running bf watch keeping the cache fresh.
// It prints a Markdown table with the growth factor between sizes and writes scale.json
// and scale.svg (a log-log plot) to the output folder.
//
// Like benchrun it reports and never fails on a figure: a nonzero exit means the harness
// could not run.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/bench/internal/brains"
	"github.com/bfgo/bf/bench/internal/measure"
)

// sizes are the brains measured: records, and notes beside them.
var sizes = map[string]gen.Config{
	"10k":  {Notes: 1_000, Records: 10_000, Seed: 1},
	"100k": {Notes: 10_000, Records: 100_000, Seed: 1},
	"1m":   {Notes: 10_000, Records: 1_000_000, Seed: 1},
}

type options struct {
	sizes      string
	bin, cache string
	out        string
	readme     string
	searchReps int
	readReps   int
}

func main() {
	var o options
	flag.StringVar(&o.sizes, "sizes", "10k,100k", "comma-separated sizes among 10k, 100k and 1m (1m takes long: by hand only)")
	flag.StringVar(&o.bin, "bin", "bin", "folder holding the bf binaries (make build)")
	flag.StringVar(&o.cache, "cache", brains.DefaultCache(), "folder keeping generated brains between runs")
	flag.StringVar(&o.out, "out", filepath.Join("bench", "results"), "folder for scale.json, scale.md and scale.svg")
	flag.StringVar(&o.readme, "readme", "", "also replace the scale table between markers in this README")
	flag.IntVar(&o.searchReps, "search-reps", 2, "measured runs of each of the fixed queries")
	flag.IntVar(&o.readReps, "read-reps", 10, "measured runs of the fixed-cost read, without and with a watcher")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "benchscale:", err)
		os.Exit(1)
	}
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...) }

// Point is one size's figures; times in ms.
type Point struct {
	Size         string             `json:"size"`
	Notes        int                `json:"notes"`
	Records      int                `json:"records"`
	BuildMS      float64            `json:"build_ms"`
	BuildRSS     int64              `json:"build_peak_rss_bytes"`
	CacheBytes   int64              `json:"cache_bytes"`
	SearchMS     float64            `json:"warm_search_median_ms"`
	PerKind      map[string]float64 `json:"warm_search_median_ms_per_kind"`
	Kinds        []string           `json:"kinds"` // the query classes, in the order of the fixed queries
	FixedMS      float64            `json:"fixed_cost_ms"`
	FixedWatchMS float64            `json:"fixed_cost_with_watch_ms"`
}

// Result is one run.
type Result struct {
	When   string  `json:"when"`
	Cores  int     `json:"cores"`
	Points []Point `json:"points"`
}

func run(o options) error {
	bf, err := measure.BF(o.bin)
	if err != nil {
		return err
	}
	if o.cache, err = filepath.Abs(o.cache); err != nil {
		return err
	}
	res := &Result{When: time.Now().UTC().Format(time.RFC3339), Cores: runtime.NumCPU()}
	for _, name := range strings.Split(o.sizes, ",") {
		cfg, ok := sizes[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("unknown size %q in -sizes; use 10k, 100k or 1m", name)
		}
		p, err := measureSize(o, bf, strings.TrimSpace(name), cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		res.Points = append(res.Points, p)
	}
	md := markdown(res)
	fmt.Print(md)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	js, _ := json.MarshalIndent(res, "", "  ")
	for f, data := range map[string][]byte{"scale.json": append(js, '\n'), "scale.md": []byte(md), "scale.svg": []byte(plot(res))} {
		if err := os.WriteFile(filepath.Join(o.out, f), data, 0o644); err != nil {
			return err
		}
	}
	if o.readme != "" {
		return measure.ReplaceBetween(o.readme, "<!-- bench:scale -->", "<!-- /bench:scale -->", md)
	}
	return nil
}

func measureSize(o options, bf, name string, cfg gen.Config) (Point, error) {
	pt := Point{Size: name, Notes: cfg.Notes, Records: cfg.Records, PerKind: map[string]float64{}}
	plan := gen.NewPlan(cfg)
	brain, _, err := brains.Ensure(o.cache, plan, logf)
	if err != nil {
		return pt, err
	}
	work := filepath.Join(filepath.Dir(brain), "work")
	logf("%s: copying the brain to %s", name, work)
	if err := brains.LinkTree(brain, work); err != nil {
		return pt, err
	}
	bfRun := func(verb string, args ...string) (measure.Sample, error) {
		s, err := measure.Run(work, bf, append([]string{verb, "--brain", work}, args...)...)
		if err == nil && s.Exit != 0 {
			err = fmt.Errorf("bf %s %s exited %d: %s", verb, strings.Join(args, " "), s.Exit, strings.TrimSpace(string(s.Stderr)))
		}
		return s, err
	}

	logf("%s: full build", name)
	s, err := bfRun("build")
	if err != nil {
		return pt, err
	}
	pt.BuildMS, pt.BuildRSS = ms(s.Wall), s.MaxRSS
	pt.CacheBytes = brains.Size(filepath.Join(work, ".bf"))

	logf("%s: warm searches", name)
	qs := gen.Queries(plan)
	byKind := map[string][]time.Duration{}
	var all []time.Duration
	for rep := 0; rep <= o.searchReps; rep++ {
		for _, q := range qs {
			args := []string{}
			if q.Scope != "" {
				args = append(args, "--scope", q.Scope)
			}
			s, err := bfRun("search", append(args, "--", q.Text)...)
			if err != nil {
				return pt, err
			}
			if rep > 0 {
				if byKind[q.Kind] == nil {
					pt.Kinds = append(pt.Kinds, q.Kind)
				}
				byKind[q.Kind] = append(byKind[q.Kind], s.Wall)
				all = append(all, s.Wall)
			}
		}
	}
	for k, ds := range byKind {
		pt.PerKind[k] = measure.Summarize(ds).Median
	}
	pt.SearchMS = measure.Summarize(all).Median

	// The fixed cost: a read of one small record, without and with a watcher, alternating
	// so that the machine's load hits both alike.
	logf("%s: fixed cost", name)
	record := "tickets:" + gen.TicketKey(0)
	var plain, watched []time.Duration
	for rep := 0; rep <= o.readReps; rep++ {
		s, err := bfRun("read", "--", record)
		if err != nil {
			return pt, err
		}
		stop, err := measure.Keep(bf, work)
		if err != nil {
			return pt, err
		}
		sw, err := bfRun("read", "--", record)
		if serr := stop(); err == nil {
			err = serr
		}
		if err != nil {
			return pt, err
		}
		if rep > 0 {
			plain = append(plain, s.Wall)
			watched = append(watched, sw.Wall)
		}
	}
	pt.FixedMS = measure.Summarize(plain).Median
	pt.FixedWatchMS = measure.Summarize(watched).Median
	return pt, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// markdown is the table of every size, with the growth factor from the previous size.
func markdown(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### How cost grows\n\n%d cores; %s. One process per command, warm file cache; times are medians. "+
		"The growth column divides a size's figure by the previous size's (records grow 10×).\n\n", r.Cores, r.When)
	head := "| measure |"
	sep := "| --- |"
	for i, p := range r.Points {
		head += fmt.Sprintf(" %s records (%s notes) |", thousands(p.Records), thousands(p.Notes))
		sep += " ---: |"
		if i > 0 {
			head += " growth |"
			sep += " ---: |"
		}
	}
	b.WriteString(head + "\n" + sep + "\n")
	row := func(label string, v func(Point) float64, format func(float64) string) {
		line := "| " + label + " |"
		for i, p := range r.Points {
			line += " " + format(v(p)) + " |"
			if i > 0 {
				prev := v(r.Points[i-1])
				if prev > 0 {
					line += fmt.Sprintf(" %.1f× |", v(p)/prev)
				} else {
					line += " |"
				}
			}
		}
		b.WriteString(line + "\n")
	}
	msf := func(v float64) string { return measure.Millis(v) }
	row("full build", func(p Point) float64 { return p.BuildMS }, msf)
	row("full build, peak RSS", func(p Point) float64 { return float64(p.BuildRSS) }, func(v float64) string { return measure.Bytes(int64(v)) })
	row("cache size", func(p Point) float64 { return float64(p.CacheBytes) }, func(v float64) string { return measure.Bytes(int64(v)) })
	row("warm search, all queries", func(p Point) float64 { return p.SearchMS }, msf)
	for _, k := range r.Points[0].Kinds {
		row("warm search, "+k, func(p Point) float64 { return p.PerKind[k] }, msf)
	}
	row("fixed cost: bf read of a record", func(p Point) float64 { return p.FixedMS }, msf)
	row("fixed cost, bf watch running", func(p Point) float64 { return p.FixedWatchMS }, msf)
	b.WriteString("\n![How cost grows with the brain: build, warm search and the fixed cost, log-log](results/scale.svg)\n")
	return b.String()
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plot draws the build, the warm search median and the fixed costs against the records,
// both axes logarithmic, as a small SVG.
func plot(r *Result) string {
	const w, h, left, right, top, bottom = 480.0, 300.0, 60.0, 150.0, 20.0, 40.0
	series := []struct {
		name, color string
		v           func(Point) float64
	}{
		{"full build", "#c0392b", func(p Point) float64 { return p.BuildMS }},
		{"warm search", "#2471a3", func(p Point) float64 { return p.SearchMS }},
		{"fixed cost", "#7d3c98", func(p Point) float64 { return p.FixedMS }},
		{"fixed, watch", "#229954", func(p Point) float64 { return p.FixedWatchMS }},
	}
	var xs, ys []float64
	for _, p := range r.Points {
		xs = append(xs, float64(p.Records))
		for _, s := range series {
			if v := s.v(p); v > 0 {
				ys = append(ys, v)
			}
		}
	}
	if len(xs) == 0 || len(ys) == 0 {
		return `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>` + "\n"
	}
	x0, x1 := math.Floor(math.Log10(slices.Min(xs))), math.Ceil(math.Log10(slices.Max(xs)))
	y0, y1 := math.Floor(math.Log10(slices.Min(ys))), math.Ceil(math.Log10(slices.Max(ys)))
	if x1 == x0 {
		x1++
	}
	if y1 == y0 {
		y1++
	}
	px := func(x float64) float64 { return left + (math.Log10(x)-x0)/(x1-x0)*(w-left-right) }
	py := func(y float64) float64 { return h - bottom - (math.Log10(y)-y0)/(y1-y0)*(h-top-bottom) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%.0f" height="%.0f" fill="white"/>`+"\n", w, h)
	for e := x0; e <= x1; e++ {
		x := px(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n",
			x, top, x, h-bottom, x, h-bottom+14, thousands(int(math.Pow(10, e))))
	}
	for e := y0; e <= y1; e++ {
		y := py(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, y, w-right, y, left-4, y+4, measure.Millis(math.Pow(10, e)))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">records</text>`+"\n", (left+w-right)/2, h-6)
	for i, s := range series {
		var pts []string
		for _, p := range r.Points {
			if v := s.v(p); v > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(float64(p.Records)), py(v)))
			}
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
		for _, pt := range pts {
			xy := strings.Split(pt, ",")
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], s.color)
		}
		ly := top + 10 + float64(i)*18
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"/><text x="%.1f" y="%.1f">%s</text>`+"\n",
			w-right+10, ly, w-right+30, ly, s.color, w-right+36, ly+4, s.name)
	}
	b.WriteString("</svg>\n")
	return b.String()
}
