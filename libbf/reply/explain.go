package reply

import "math"

// Explanation says why a search hit is where it is: the strategies that found it, each
// one's rank and score, the query terms it holds, the graph path that reached it, the
// fused score and any penalty applied. Fused search explains every hit; word search
// explains its hits with --explain.
type Explanation struct {
	// Path is the confirmed edge through which the graph strategy reached the hit from
	// another hit: the stating item (from), its relation ("" for an untyped link) and the
	// item linked (to). One of from and to is this hit.
	Path []Step `json:"path,omitempty"`
	// Penalties are the factors that lowered the hit's score.
	Penalties []Penalty `json:"penalties,omitempty"`
	// Replaces names the superseded items whose rank this successor took.
	Replaces []string `json:"replaces,omitempty"`
	// Score is the fused score (weighted reciprocal ranks) in fused search, the word
	// ranking's score otherwise.
	Score float64 `json:"score"`
	// Strategies are the strategies that ranked the hit, in the order lexical, dense,
	// graph, recency.
	Strategies []Contribution `json:"strategies"`
	// Terms are the query terms the item holds, as the query wrote them.
	Terms []string `json:"terms,omitempty"`
}

// Contribution is one strategy's view of a hit.
type Contribution struct {
	// Contribution is what the strategy added to the fused score (absent in word
	// search): weight / (60 + rank) (strength: weight × score / 61), or less for the
	// graph and recency evidence of a matched item (docs/search.md, fused search).
	Contribution float64 `json:"contribution,omitempty"`
	Name         string  `json:"name"`
	// Rank is the hit's 1-based rank in the strategy's own list.
	Rank int `json:"rank"`
	// Score is the strategy's own score, on its own scale.
	Score float64 `json:"score"`
	// Weight is the strategy's weight for the query's class (absent in word search).
	Weight float64 `json:"weight,omitempty"`
}

// Step is one edge of a graph path.
type Step struct {
	From     string `json:"from"`
	Relation string `json:"relation,omitempty"`
	To       string `json:"to"`
}

// Penalty is a factor applied to a hit's score, and why.
type Penalty struct {
	// Factor is what the score was multiplied by; absent for an ordering rule.
	Factor float64 `json:"factor,omitempty"`
	Reason string  `json:"reason"`
}

// Fused describes a fused search: the query's class, the weight of each strategy for it,
// and the strategies that could not run, with why.
type Fused struct {
	Class       string             `json:"class"`
	Unavailable map[string]string  `json:"unavailable,omitempty"`
	Weights     map[string]float64 `json:"weights"`
}

// Round6 rounds a score to six decimals, so explanations print short, stable numbers.
func Round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
