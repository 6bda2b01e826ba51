package fuse

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/bfgo/bf/libbf/fold"
)

// Strategy names, in the order explanations list them.
const (
	Lexical = "lexical"
	// Strength is the lexical list seen by score rather than rank: each item of the word
	// ranking gains weight × (its score ÷ the query's best score) / (K + 1), so an item
	// close to the best word match keeps the lead its words earned while the lexical
	// weight itself stays below the dense one (see rrf.go).
	Strength = "strength"
	Dense    = "dense"
	Graph    = "graph"
	Recency  = "recency"
)

// strategies lists the strategy names in order.
var strategies = []string{Lexical, Strength, Dense, Graph, Recency}

// Query classes.
const (
	classPhrase   = "phrase"
	classRecent   = "recent"
	className     = "name"
	classSentence = "sentence"
	classKeywords = "keywords"
)

// Weights are the weight of each strategy for a query class (docs/search.md lists them).
type Weights map[string]float64

// classWeights holds the weights of every class. Each class leans towards the strategy
// suited to it by raising that one: a phrase, a period and keywords lean lexical, a name
// graph, a sentence dense. A sentence's words are many and loosely chosen, so its meaning
// leads (dense 1, lexical 0.6); the strength of its best word matches keeps what the words
// found on top when the model is weaker than the words (bench/README.md, "Weights that
// hold across models").
var classWeights = map[string]Weights{
	classPhrase:   {Lexical: 1, Dense: 0.25, Graph: 0.2, Recency: 0.1},
	classRecent:   {Lexical: 1, Dense: 0.4, Graph: 0.3, Recency: 0.8},
	className:     {Lexical: 1, Dense: 0.3, Graph: 0.8, Recency: 0.1},
	classSentence: {Lexical: 0.6, Strength: 0.5, Dense: 1, Graph: 0.3, Recency: 0.1},
	classKeywords: {Lexical: 1, Dense: 0.4, Graph: 0.3, Recency: 0.2},
}

// WeightsOf returns a copy of a class's weights.
func WeightsOf(class string) Weights {
	out := Weights{}
	for k, v := range classWeights[class] {
		out[k] = v
	}
	return out
}

// recentWords mark a query about the latest state of something.
var recentWords = map[string]bool{
	"latest": true, "recent": true, "recently": true, "newest": true, "current": true,
	"currently": true, "today": true, "yesterday": true, "now": true, "this week": true,
	"last week": true, "this month": true, "last month": true,
}

// questionWords open a question.
var questionWords = map[string]bool{
	"what": true, "why": true, "how": true, "when": true, "where": true, "who": true, "whom": true,
	"which": true, "whose": true, "does": true, "do": true, "did": true, "is": true, "are": true,
	"was": true, "were": true, "can": true, "could": true, "should": true, "would": true, "will": true,
}

// period matches a day, a month, a range of days or a relative period (7d, 2w, 12h)
// written in a query.
var period = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^|\s)(\d{4}-\d{2}(-\d{2})?(\.\.\d{4}-\d{2}-\d{2})?|\d{1,3}[hdw])(\s|$)`)
})

// sentenceWords is the number of words from which an unquoted query is a sentence.
const sentenceWords = 6

// Classify is the deterministic rule choosing a query's class, the first that applies:
//
//  1. phrase: the query quotes a phrase or a word;
//  2. recent: it holds a period (2026-09, 2026-09-27, 7d) or a word asking for the latest
//     state (latest, recent, newest, current, today, this week…);
//  3. name: it is an identity (repo:…, person:…, bf://…), or two to four words each
//     starting with a capital letter (Dana Whitfield, Ledger Migration);
//  4. sentence: it ends with a question mark, starts with a question word (what, how,
//     does…) or holds six words or more;
//  5. keywords: anything else.
func Classify(text string, q fold.Query) string {
	for _, t := range q.Terms {
		if t.Quoted {
			return classPhrase
		}
	}
	trimmed := strings.TrimSpace(text)
	words := strings.FieldsFunc(strings.ToLower(trimmed), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '-' && r != '.' && r != ':'
	})
	for i, w := range words {
		if recentWords[strings.Trim(w, ".-:")] {
			return classRecent
		}
		if i+1 < len(words) && recentWords[strings.Trim(w, ".-:")+" "+strings.Trim(words[i+1], ".-:")] {
			return classRecent
		}
	}
	if period().MatchString(strings.ToLower(trimmed)) {
		return classRecent
	}
	if q.Identity != "" || capitalized(trimmed) {
		return className
	}
	if strings.HasSuffix(trimmed, "?") || len(words) > 0 && questionWords[words[0]] || len(words) >= sentenceWords {
		return classSentence
	}
	return classKeywords
}

// capitalized reports two to four words, each starting with an upper-case letter.
func capitalized(s string) bool {
	words := strings.Fields(s)
	if len(words) < 2 || len(words) > 4 {
		return false
	}
	for _, w := range words {
		r := []rune(w)[0]
		if !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}
