package memory

import (
	"math"
	"strings"
)

// Bounds of the formula.
const (
	relevanceFloor = 0.35 // a matched row never scores as if it had not matched
	stakesMin      = 0.70
	stakesMax      = 1.43 // the widest gap between tier weights, 1 / 0.70
	scopeOwn       = 1.6
	scopeStep      = 0.25
	scopeFloor     = 0.8
	usageSlope     = 0.15
	usageCap       = 0.5
	pinBrowse      = 2.0
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

// relevance maps a word-match strength s (higher is better, > 0) against the best one of
// the candidates onto relevanceFloor..1.
func relevance(s, best float64) float64 {
	if best <= 0 || s <= 0 {
		return relevanceFloor
	}
	return relevanceFloor + (1-relevanceFloor)*math.Min(s/best, 1)
}

// recency is 0.5^(days/half-life), or 1 for a tier that never decays.
func recency(days, halfLife float64) float64 {
	if halfLife <= 0 {
		return 1
	}
	if days < 0 {
		days = 0
	}
	return math.Pow(0.5, days/halfLife)
}

// usage is 1 + min(0.15·ln(1+uses), 0.5).
func usage(uses int) float64 {
	if uses < 0 {
		uses = 0
	}
	return 1 + math.Min(usageSlope*math.Log(1+float64(uses)), usageCap)
}

// stakes is tier × importance/3 × usage × confidence, clamped to 0.70..1.43.
func stakes(tier, importance, usage, confidence float64) float64 {
	s := tier * (importance / 3) * usage * confidence
	return math.Max(stakesMin, math.Min(stakesMax, s))
}

// scopeLevels lists a scope and every level above it, nearest first, ending with global.
func scopeLevels(scope string) []string {
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

// scopeDistance is how many steps out from asked a memory's scope sits, or -1 when the
// memory is not visible from asked (a sibling or a level below).
func scopeDistance(asked, scope string) int {
	for i, l := range scopeLevels(asked) {
		if l == scope {
			return i
		}
	}
	return -1
}

// scopeFactor is 1.6 at the asked scope, 0.25 less per step out, never below 0.8.
func scopeFactor(steps int) float64 {
	return math.Max(scopeFloor, scopeOwn-scopeStep*float64(steps))
}

// required is how many of n query terms a candidate must hold: all for one or two,
// three in five (rounded up) for more.
func required(n int) int {
	if n <= 2 {
		return n
	}
	return int(math.Ceil(0.6 * float64(n)))
}
