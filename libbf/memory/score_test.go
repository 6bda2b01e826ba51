package memory

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRecency(t *testing.T) {
	for _, c := range []struct{ days, half, want float64 }{
		{0, 180, 1},
		{180, 180, 0.5},
		{90, 180, math.Sqrt(0.5)},
		{8, 4, 0.25},
		{30, 4, math.Pow(0.5, 7.5)},
		{3650, 0, 1}, // tier A never decays
		{-2, 4, 1},   // a clock behind the save counts as now
	} {
		if got := recency(c.days, c.half); !near(got, c.want) {
			t.Errorf("Recency(%v, %v) = %v, want %v", c.days, c.half, got, c.want)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		uses int
		want float64
	}{
		{0, 1},
		{1, 1 + 0.15*math.Log(2)},
		{10, 1 + 0.15*math.Log(11)},
		{27, 1 + 0.15*math.Log(28)}, // 0.4998…, just under the cap
		{100, 1.5},
		{1 << 30, 1.5},
	} {
		if got := usage(c.uses); !near(got, c.want) {
			t.Errorf("Usage(%d) = %v, want %v", c.uses, got, c.want)
		}
	}
}

func TestStakesClamp(t *testing.T) {
	for _, c := range []struct{ tier, imp, usage, conf, want float64 }{
		{0.9, 3, 1, 0.9, 0.81},
		{1.0, 5, 1, 1.0, 1.43},   // 1.667 clamped
		{1.0, 5, 1.5, 1.0, 1.43}, // 2.5 clamped
		{0.7, 1, 1, 0.75, 0.70},  // 0.175 raised
		{0.8, 3, 1, 1.0, 0.8},
		{1.0, 4, 1, 1.0, 4.0 / 3},
	} {
		if got := stakes(c.tier, c.imp, c.usage, c.conf); !near(got, c.want) {
			t.Errorf("Stakes(%v) = %v, want %v", c, got, c.want)
		}
	}
	// The cap is the widest gap between tier weights, rounded as the rule states it.
	if got := math.Round(tierA.Weight/tierD.Weight*100) / 100; got != stakesMax {
		t.Errorf("1/0.70 rounds to %v, StakesMax is %v", got, stakesMax)
	}
}

func TestRelevance(t *testing.T) {
	for _, c := range []struct{ s, best, want float64 }{
		{10, 10, 1},
		{5, 10, 0.35 + 0.65*0.5},
		{0, 10, 0.35},
		{3, 0, 0.35},
	} {
		if got := relevance(c.s, c.best); !near(got, c.want) {
			t.Errorf("Relevance(%v, %v) = %v, want %v", c.s, c.best, got, c.want)
		}
	}
}

func TestScopes(t *testing.T) {
	if diff := cmp.Diff([]string{"channel:deploy:prod", "channel:deploy", "channel", "global"}, scopeLevels("channel:deploy:prod")); diff != "" {
		t.Error(diff)
	}
	for _, c := range []struct {
		asked, scope string
		steps        int
		factor       float64
	}{
		{"channel:deploy:prod", "channel:deploy:prod", 0, 1.6},
		{"channel:deploy:prod", "channel:deploy", 1, 1.35},
		{"channel:deploy:prod", "channel", 2, 1.1},
		{"channel:deploy:prod", "global", 3, 0.85},
		{"a:b:c:d:e", "global", 5, 0.8},
		{"channel:deploy:prod", "channel:deploy:staging", -1, 0},
		{"channel:deploy", "channel:deploy:prod", -1, 0},
		{"global", "global", 0, 1.6},
	} {
		steps := scopeDistance(c.asked, c.scope)
		if steps != c.steps {
			t.Errorf("ScopeDistance(%s, %s) = %d, want %d", c.asked, c.scope, steps, c.steps)
			continue
		}
		if steps >= 0 && !near(scopeFactor(steps), c.factor) {
			t.Errorf("ScopeFactor(%d) = %v, want %v", steps, scopeFactor(steps), c.factor)
		}
	}
}

func TestRequired(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 10: 6} {
		if got := required(n); got != want {
			t.Errorf("Required(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestOverlap(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"prod deploys run from the release branch only via ci", "prod deploys run from the release branch through ci", 8.0 / 11},
		{"prod db host", "prod db port", 0.5},
		{"Same  Title", "same title", 1},
		{"", "x", 0},
	} {
		if got := overlap(c.a, c.b); !near(got, c.want) {
			t.Errorf("Overlap(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if normalizeTitle("  Prod   DB\tHost ") != "prod db host" {
		t.Error("NormalizeTitle does not even out case and spacing")
	}
}

func TestTiers(t *testing.T) {
	// What the seed fixes: incident is tier A, preference tier C, a four-day tier exists,
	// weights span 0.70 to 1.0, policy and constraint are rules.
	if types["incident"] != tierA || types["preference"] != tierC || tierD.HalfLife != 4 {
		t.Error("tier table broken")
	}
	lo, hi := 1.0, 0.0
	for _, tr := range types {
		lo, hi = min(lo, tr.Weight), max(hi, tr.Weight)
	}
	if lo != 0.7 || hi != 1.0 || !isRule("policy") || !isRule("constraint") || isRule("decision") {
		t.Errorf("weights %v..%v", lo, hi)
	}
	if normalizeConfidence("HIGH") != confirmed || normalizeConfidence("medium") != Reported || normalizeConfidence("low") != uncertain || normalizeConfidence("sure") != "" {
		t.Error("confidence synonyms")
	}
}
