// Package memory holds agent memories: typed notes under concepts/memory/ that fade by
// type, rank by a capped formula, live in scopes, correct each other through a declared
// supersedes relation, refuse duplicates when saved, know whether the code moved under
// them, and reach an agent as a size-capped brief.
//
// A memory is a plain OKF note of the brain, so search, read, validate and Git see it.
// Its front matter `type` is the memory type; the other values are declared fields of
// bf.yaml written under `fields:` (see Fields). Usage counts are machine state kept in the
// brain's state folder, never written into the note.
package memory

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/bfgo/bf/libbf/fold"
)

// Folder is where memory notes live inside a brain.
const Folder = "concepts/memory"

// historyFolder keeps the replaced bodies of memories updated in place; names starting
// with a dot are never indexed.
const historyFolder = Folder + "/.history"

// Tier is a memory type's shelf life and weight.
type Tier struct {
	Name     string  // A, B, C or D
	Weight   float64 // the tier factor of stakes
	HalfLife float64 // days; 0 never decays
}

// Tiers, heaviest first. Weights span 0.70 to 1.0: the stakes cap is 1/0.70.
var (
	tierA = Tier{"A", 1.0, 0}
	tierB = Tier{"B", 0.9, 180}
	tierC = Tier{"C", 0.8, 90}
	tierD = Tier{"D", 0.7, 4}
)

// types maps every memory type to its tier.
var types = map[string]Tier{
	"policy":       tierA,
	"constraint":   tierA,
	"decision":     tierA,
	"incident":     tierA,
	"gotcha":       tierB,
	"infra":        tierB,
	"access":       tierB,
	"fact":         tierB,
	"preference":   tierC,
	"relationship": tierC,
	"state":        tierD,
}

// typeNames lists the types in a stable order for messages.
func typeNames() []string {
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// The types of the brief's two capped sections: rules go into every brief whatever their
// rank; preferences and relationships say how the user wants to work.
var (
	ruleTypes       = []string{"policy", "constraint"}
	preferenceTypes = []string{"preference", "relationship"}
)

// isRule reports whether a type goes into every brief whatever its rank.
func isRule(typ string) bool { return slices.Contains(ruleTypes, typ) }

func isPreference(typ string) bool { return slices.Contains(preferenceTypes, typ) }

// stamped reports whether a type records the commit it was true at.
func stamped(typ string) bool { return typ == "gotcha" || typ == "state" || typ == "incident" }

// reviewed reports whether a type gets a review date by default.
func reviewed(typ string) bool { return typ == "infra" || typ == "access" }

// reviewDays is the default review delay of infra and access memories.
const reviewDays = 30

// Confidence values and their factors in stakes.
const (
	confirmed = "confirmed"
	Reported  = "reported"
	uncertain = "uncertain"
)

// confidenceFactor weighs how sure a memory is.
var confidenceFactor = map[string]float64{confirmed: 1.0, Reported: 0.9, uncertain: 0.75}

// confidenceSynonyms translates the words other tools use.
var confidenceSynonyms = map[string]string{"high": confirmed, "medium": Reported, "low": uncertain}

// normalizeConfidence returns the stored confidence for a value or synonym, "" when unknown.
func normalizeConfidence(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if _, ok := confidenceFactor[s]; ok {
		return s
	}
	return confidenceSynonyms[s]
}

// Trust values: where a memory came from.
var trustValues = []string{"stated", "imported", "external"}

// Defaults.
const (
	defaultImportance = 3
	DefaultScope      = "global"
	DefaultTrust      = "stated"
	defaultConfidence = Reported
)

// Memory is one memory note as read from the brain.
type Memory struct {
	Ref        string    `json:"ref"` // brain-relative note path
	Title      string    `json:"title"`
	Type       string    `json:"type"`
	Body       string    `json:"body"`
	Importance int       `json:"importance"`
	Confidence string    `json:"confidence"`
	Trust      string    `json:"trust"`
	Scope      string    `json:"scope"`
	Pinned     bool      `json:"pinned,omitempty"`
	Review     string    `json:"review,omitempty"` // YYYY-MM-DD
	Commit     string    `json:"commit,omitempty"`
	Project    string    `json:"project,omitempty"` // root commit of the repository stamped
	Source     string    `json:"source,omitempty"`
	SourceRef  string    `json:"source_ref,omitempty"`
	Saved      time.Time `json:"-"`
	Supersedes []string  `json:"supersedes,omitempty"` // refs
	// DistinctFrom names the memories whose titles overlap this one's that it was saved
	// beside on purpose (--allow-duplicate): bf review does not report those pairs.
	DistinctFrom []string `json:"distinct_from,omitempty"` // refs
	Verified     []Check  `json:"verified,omitempty"`
	// Unreviewed marks what an agent saved that no person reviewed yet (bf review
	// --accept): recall and the brief show it, labelled; fused search, bf ask and MCP
	// resources leave it out at the default trust floor.
	Unreviewed bool `json:"unreviewed,omitempty"`

	// SupersededBy is computed from the other memories' supersedes relations.
	SupersededBy []string `json:"superseded_by,omitempty"`
}

// Check is one verification event.
type Check struct {
	By string `json:"by"`
	At string `json:"at"`
}

// Tier returns the memory's tier.
func (m *Memory) Tier() Tier { return types[m.Type] }

// Identity is what makes two memories the same one: scope and normalized title.
func (m *Memory) Identity() string { return identity(m.Scope, m.Title) }

// identity joins a scope and a normalized title.
func identity(scope, title string) string { return scope + "\x00" + normalizeTitle(title) }

// normalizeTitle evens out case, compatibility forms and spacing.
func normalizeTitle(t string) string {
	return strings.Join(strings.Fields(strings.ToLower(fold.Text(t))), " ")
}

// titleWords are the distinct words of a title, folded and lower-cased.
func titleWords(t string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(fold.Text(t)), func(r rune) bool {
		return !isWordRune(r)
	}) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// overlap is the share of distinct words two titles have in common (shared / all).
func overlap(a, b string) float64 { return wordOverlap(titleWords(a), titleWords(b)) }

// wordOverlap is Overlap of two titles' distinct words.
func wordOverlap(wa, wb []string) float64 {
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	shared := 0
	for _, w := range wa {
		if slices.Contains(wb, w) {
			shared++
		}
	}
	return float64(shared) / float64(len(wa)+len(wb)-shared)
}

// Duplicate-guard thresholds.
const (
	guardMinWords = 5
	guardOverlap  = 0.5
)

func round(x float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(x*p) / p
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }
