package main

import (
	"strings"
	"testing"
)

func TestMarkdownGrowth(t *testing.T) {
	kinds := []string{"word", "words", "phrase", "prefix", "scoped", "common", "identity"}
	r := &Result{When: "2026-12-01T00:00:00Z", Cores: 2, Points: []Point{
		{Size: "10k", Notes: 1000, Records: 10000, BuildMS: 2000, BuildRSS: 100 << 20, CacheBytes: 50 << 20, SearchMS: 20,
			PerKind: map[string]float64{"word": 10}, Kinds: kinds, FixedMS: 15, FixedWatchMS: 10},
		{Size: "100k", Notes: 10000, Records: 100000, BuildMS: 25000, BuildRSS: 250 << 20, CacheBytes: 500 << 20, SearchMS: 50,
			PerKind: map[string]float64{"word": 40}, Kinds: kinds, FixedMS: 60, FixedWatchMS: 12},
	}}
	md := markdown(r)
	for _, want := range []string{
		"| measure | 10,000 records (1,000 notes) | 100,000 records (10,000 notes) | growth |",
		"| full build | 2.00 s | 25.0 s | 12.5× |",
		"| warm search, word | 10.0 ms | 40.0 ms | 4.0× |",
		"| warm search, words | 0.00 ms | 0.00 ms | |",
		"| warm search, common | 0.00 ms | 0.00 ms | |",
		"| fixed cost, bf watch running | 10.0 ms | 12.0 ms | 1.2× |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("table lacks %q:\n%s", want, md)
		}
	}
	svg := plot(r)
	if got := strings.Count(svg, "<polyline"); got != 4 {
		t.Errorf("plot has %d lines, want 4", got)
	}
	if got := strings.Count(svg, "<circle"); got != 8 {
		t.Errorf("plot has %d points, want 8", got)
	}
}
