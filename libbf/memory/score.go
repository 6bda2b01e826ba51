package memory

import (
	"math"
	"strings"
)

// Bounds of the formula.
const (
	RelevanceFloor = 0.35 // a matched row never scores as if it had not matched
	StakesMin      = 0.70
	StakesMax      = 1.43 // the widest gap between tier weights, 1 / 0.70
	ScopeOwn       = 1.6
	ScopeStep      = 0.25
	ScopeFloor     = 0.8
	UsageSlope     = 0.15
	UsageCap       = 0.5
	PinBrowse      = 2.0
)

// Factors are the terms of one score, shown with every result.
type Factors struct {
	Relevance float64 `json:"relevance"`
	Coverage  float64 `json:"coverage"`
	Recency   float64 `json:"recency"`
	Stakes    float64 `json:"stakes"`
	Scope     float64 `json:"scope"`
	Pin       float64 `json:"pin"`
	Usage     float64 `json:"usage"`
}

// Score multiplies the factors.
func (f Factors) Score() float64 {
	return f.Relevance * f.Coverage * f.Recency * f.Stakes * f.Scope * f.Pin
}

// Relevance maps a word-match strength s (higher is better, > 0) against the best one of
// the candidates onto RelevanceFloor..1.
func Relevance(s, best float64) float64 {
	if best <= 0 || s <= 0 {
		return RelevanceFloor
	}
	return RelevanceFloor + (1-RelevanceFloor)*math.Min(s/best, 1)
}

// Recency is 0.5^(days/half-life), or 1 for a tier that never decays.
func Recency(days, halfLife float64) float64 {
	if halfLife <= 0 {
		return 1
	}
	if days < 0 {
		days = 0
	}
	return math.Pow(0.5, days/halfLife)
}

// Usage is 1 + min(0.15·ln(1+uses), 0.5).
func Usage(uses int) float64 {
	if uses < 0 {
		uses = 0
	}
	return 1 + math.Min(UsageSlope*math.Log(1+float64(uses)), UsageCap)
}

// Stakes is tier × importance/3 × usage × confidence, clamped to 0.70..1.43.
func Stakes(tier, importance, usage, confidence float64) float64 {
	s := tier * (importance / 3) * usage * confidence
	return math.Max(StakesMin, math.Min(StakesMax, s))
}

// ScopeLevels lists a scope and every level above it, nearest first, ending with global.
func ScopeLevels(scope string) []string {
	if scope == "" || scope == DefaultScope {
		return []string{DefaultScope}
	}
	parts := strings.Split(scope, ":")
	out := make([]string, 0, len(parts)+1)
	for i := len(parts); i > 0; i-- {
		out = append(out, strings.Join(parts[:i], ":"))
	}
	return append(out, DefaultScope)
}

// ScopeDistance is how many steps out from asked a memory's scope sits, or -1 when the
// memory is not visible from asked (a sibling or a level below).
func ScopeDistance(asked, scope string) int {
	for i, l := range ScopeLevels(asked) {
		if l == scope {
			return i
		}
	}
	return -1
}

// ScopeFactor is 1.6 at the asked scope, 0.25 less per step out, never below 0.8.
func ScopeFactor(steps int) float64 {
	return math.Max(ScopeFloor, ScopeOwn-ScopeStep*float64(steps))
}

// Required is how many of n query terms a candidate must hold: all for one or two,
// three in five (rounded up) for more.
func Required(n int) int {
	if n <= 2 {
		return n
	}
	return int(math.Ceil(0.6 * float64(n)))
}
