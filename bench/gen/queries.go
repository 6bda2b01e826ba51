package gen

import (
	"slices"
	"strings"
)

// Query is one benchmark search: what is passed to bf search, and what a brute-force
// baseline needs to do the same work.
type Query struct {
	Kind  string `json:"kind"` // word, words, phrase, prefix, scoped, common, identity
	Text  string `json:"query"`
	Scope string `json:"scope,omitempty"`
	// Words are the query's words without function words (the phrase as one entry for a
	// phrase, the stem without * for a prefix); Identity is the identity searched.
	Words    []string `json:"-"`
	Identity string   `json:"-"`
}

// IsFunctionWord reports whether w is one of the function words of the vocabulary.
func IsFunctionWord(w string) bool { return slices.Contains(functionWords, w) }

// Queries returns the fixed set of 64 benchmark queries for the brain of p: one-word,
// multi-word, phrase, prefix, scoped, common-word and identity searches over words and names the
// generator always writes.
func Queries(p *Plan) []Query {
	var qs []Query
	words := func(kind, text, scope string, ws ...string) {
		qs = append(qs, Query{Kind: kind, Text: text, Scope: scope, Words: ws})
	}
	for _, w := range []string{"customer", "release", "ledger", "latency", "rollback", "invoice",
		"kubernetes", "reconciliation", "quarantine", "postmortem"} {
		words("word", w, "", w)
	}
	for _, q := range [][]string{
		{"ledger migration plan", "ledger", "migration", "plan"},
		{"payment refund invoice", "payment", "refund", "invoice"},
		{"customer churn analysis", "customer", "churn", "analysis"},
		{"database latency spike after deploy", "database", "latency", "spike", "deploy"},
		{"how do we rotate access tokens", "rotate", "access", "tokens"},
		{"quarterly budget review", "quarterly", "budget", "review"},
		{"incident postmortem timeline", "incident", "postmortem", "timeline"},
		{"search index rebuild", "search", "index", "rebuild"},
		{"vendor contract renewal", "vendor", "contract", "renewal"},
		{"mobile release checklist", "mobile", "release", "checklist"},
	} {
		words("words", q[0], "", q[1:]...)
	}
	for _, ph := range []string{"error budget", "on call", "release train", "customer churn",
		"data retention", "feature flag", "root cause", "rate limit"} {
		words("phrase", `"`+ph+`"`, "", ph)
	}
	for _, pre := range []string{"migr", "deploy", "cust", "escal", "reconcil", "encrypt"} {
		words("prefix", pre+"*", "", pre)
	}
	person := func(k int) Person { return p.People[k%len(p.People)] }
	repo := "repo:github.com/bench/" + repoNames[0]
	if len(p.Repos) > 0 {
		repo = p.Repos[0]
	}
	tag := func(label string) string { return "bf://" + BrainName + "/tags/" + label }
	for _, s := range []struct{ text, scope string }{
		{"ledger", "projects"},
		{"rollback", "concepts"},
		{"refund", "memories/tickets"},
		{"latency", "memories/mail"},
		{"budget review", "2026-03"},
		{"invoice", "memories/mail/2025-06"},
		{"release", "projects/platform"},
		{"deploy", tag("infra")},
	} {
		words("scoped", s.text, s.scope, fieldsOf(s.text)...)
	}
	// Common: only the most frequent content words, one, two and three at a time, a
	// phrase of them, and one of them in one source.
	for _, ranks := range commonQueries {
		var ws []string
		for _, r := range ranks {
			ws = append(ws, contentWords[r])
		}
		words([]string{"", "common", "common pair", "common triple"}[len(ranks)], strings.Join(ws, " "), "", ws...)
	}
	for _, ph := range commonPhrases {
		words("common phrase", `"`+ph+`"`, "", ph)
	}
	for k, source := range []string{"tickets", "mail", "chat"} {
		w := contentWords[k]
		words("common in a source", w, "memories/"+source, w)
	}
	hub := ""
	if p.Hub >= 0 {
		hub = "bf://" + BrainName + "/" + p.Notes[p.Hub].Path
	}
	for _, id := range []string{
		"person:email/" + person(0).Email,
		"person:email/" + person(1).Email,
		repo,
		tag("billing"),
		person(0).Entity,
		"tickets:" + TicketKey(0),
		TicketURL(0),
		hub,
	} {
		qs = append(qs, Query{Kind: "identity", Text: id, Identity: id})
	}
	return qs
}

func fieldsOf(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return out
}

// commonQueries are the common-word queries as ranks among content words (0 is the most
// frequent after the function words): the three most frequent words alone, then pairs and
// triples of the most frequent ones.
var commonQueries = [][]int{{0}, {1}, {2}, {0, 1}, {2, 3}, {4, 5}, {0, 1, 2}, {3, 4, 5}, {6, 7, 8}}

// commonPhrases are vocabulary phrases whose first word is among the most frequent: in
// about one passage in ten of the large brain ("release train" 18,086, "team lead" 9,259).
var commonPhrases = []string{"release train", "team lead"}
