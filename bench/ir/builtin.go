package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/fuse"
	bfsearch "github.com/bfgo/bf/libbf/search"
)

// This file holds the experiment behind the built-in provider question: vectors learned
// from the collection's own text, with no model, each ranking the documents for every
// query and fused with the lexical list by bf's own rule (weighted reciprocal rank with
// the query class's weights). Every variant is computed here, in the benchmark, from the
// corpus alone.

// tokens are a text's lower-case words without function words and one-letter tokens.
func tokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(fold.Text(s)), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len([]rune(w)) < 2 || fold.IsFunctionWord(w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// collection is the corpus as token lists with its vocabulary (words in two documents
// or more) and TF-IDF matrix.
type collection struct {
	ids   []string
	toks  [][]string
	vocab map[string]int
	words []string
	df    []int
	idf   []float64
	tfidf *sparse
}

func newCollection(corpus []byte) (*collection, error) {
	c := &collection{vocab: map[string]int{}}
	sc := bufio.NewScanner(strings.NewReader(string(corpus)))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	df := map[string]int{}
	for sc.Scan() {
		var d doc
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return nil, err
		}
		t := tokens(d.Title + "\n" + d.Text)
		c.ids = append(c.ids, d.ID)
		c.toks = append(c.toks, t)
		seen := map[string]bool{}
		for _, w := range t {
			if !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	for w, n := range df {
		if n >= 2 {
			c.words = append(c.words, w)
		}
	}
	slices.Sort(c.words)
	for i, w := range c.words {
		c.vocab[w] = i
		c.df = append(c.df, df[w])
		c.idf = append(c.idf, math.Log(float64(len(c.ids))/float64(df[w])))
	}
	c.tfidf = &sparse{rows: len(c.ids), cols: len(c.words), ptr: []int{0}}
	for _, t := range c.toks {
		idx, val := c.weigh(t)
		c.tfidf.idx = append(c.tfidf.idx, idx...)
		c.tfidf.val = append(c.tfidf.val, val...)
		c.tfidf.ptr = append(c.tfidf.ptr, len(c.tfidf.idx))
	}
	return c, sc.Err()
}

// weigh is a token list's unit TF-IDF vector (1 + log tf) · idf, sorted by term.
func (c *collection) weigh(t []string) ([]int, []float64) {
	tf := map[int]int{}
	for _, w := range t {
		if i, ok := c.vocab[w]; ok {
			tf[i]++
		}
	}
	idx := make([]int, 0, len(tf))
	for i := range tf {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	val := make([]float64, len(idx))
	var norm float64
	for n, i := range idx {
		val[n] = (1 + math.Log(float64(tf[i]))) * c.idf[i]
		norm += val[n] * val[n]
	}
	norm = math.Sqrt(norm)
	for n := range val {
		if norm > 0 {
			val[n] /= norm
		}
	}
	return idx, val
}

// ranker scores every document for a query, best first.
type ranker func(query string) []string

// topOf orders documents by score and keeps the first 100.
func (c *collection) topOf(score []float64) []string {
	order := make([]int, len(score))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if x := cmp.Compare(score[b], score[a]); x != 0 {
			return x
		}
		return cmp.Compare(c.ids[a], c.ids[b])
	})
	out := make([]string, 0, 100)
	for _, i := range order[:min(100, len(order))] {
		out = append(out, c.ids[i])
	}
	return out
}

// unitRows scales each row of d to unit length.
func unitRows(d *dense) {
	for i := 0; i < d.rows; i++ {
		r := d.row(i)
		n := math.Sqrt(dotf(r, r))
		if n > 0 {
			for j := range r {
				r[j] /= n
			}
		}
	}
}

// lsa ranks by the cosine of LSA vectors: documents as U·S, a query folded in as q·V.
func (c *collection) lsa(s svd) ranker {
	score := c.lsaScores(s)
	return func(query string) []string { return c.topOf(score(query)) }
}

// lsaScores is the LSA cosine of every document to a query.
func (c *collection) lsaScores(s svd) func(string) []float64 {
	k := len(s.S)
	docs := newDense(c.tfidf.rows, k)
	for i := 0; i < docs.rows; i++ {
		for j := 0; j < k; j++ {
			docs.v[i*k+j] = s.U.v[i*k+j] * s.S[j]
		}
	}
	unitRows(docs)
	return func(query string) []float64 {
		idx, val := c.weigh(tokens(query))
		q := make([]float64, k)
		for n, t := range idx {
			vr := s.V.row(t)
			for j := range q {
				q[j] += val[n] * vr[j]
			}
		}
		score := make([]float64, docs.rows)
		for i := range score {
			score[i] = dotf(docs.row(i), q)
		}
		return score
	}
}

// ppmi is the positive pointwise mutual information of words co-occurring within window
// words of each other, with context counts smoothed by the power 0.75.
func (c *collection) ppmi(window int) *sparse {
	pairs := map[[2]int]float64{}
	for _, t := range c.toks {
		ids := make([]int, 0, len(t))
		for _, w := range t {
			if i, ok := c.vocab[w]; ok {
				ids = append(ids, i)
			}
		}
		for a := range ids {
			for b := a + 1; b <= a+window && b < len(ids); b++ {
				if ids[a] == ids[b] || c.df[ids[a]] < 5 || c.df[ids[b]] < 5 {
					continue
				}
				pairs[[2]int{ids[a], ids[b]}]++
				pairs[[2]int{ids[b], ids[a]}]++
			}
		}
	}
	n := len(c.words)
	row := make([]float64, n)
	ctx := make([]float64, n)
	var total, ctxTotal float64
	for p, v := range pairs {
		row[p[0]] += v
		total += v
	}
	for i := range ctx {
		ctx[i] = math.Pow(row[i], 0.75)
		ctxTotal += ctx[i]
	}
	byRow := make([][]int, n)
	keys := make([][2]int, 0, len(pairs))
	for p := range pairs {
		keys = append(keys, p)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if x := cmp.Compare(a[0], b[0]); x != 0 {
			return x
		}
		return cmp.Compare(a[1], b[1])
	})
	_ = byRow
	m := &sparse{rows: n, cols: n, ptr: make([]int, n+1)}
	for _, p := range keys {
		v := math.Log(pairs[p] * ctxTotal / (row[p[0]] * ctx[p[1]]))
		if v <= 0 {
			continue
		}
		m.idx = append(m.idx, p[1])
		m.val = append(m.val, v)
		m.ptr[p[0]+1] = len(m.idx)
	}
	for i := 1; i <= n; i++ {
		if m.ptr[i] < m.ptr[i-1] {
			m.ptr[i] = m.ptr[i-1]
		}
	}
	_ = total
	return m
}

// wordVectors are U·√S of a word matrix's SVD, unit rows.
func wordVectors(s svd) *dense {
	k := len(s.S)
	w := newDense(s.U.rows, k)
	for i := 0; i < w.rows; i++ {
		for j := 0; j < k; j++ {
			w.v[i*k+j] = s.U.v[i*k+j] * math.Sqrt(s.S[j])
		}
	}
	unitRows(w)
	return w
}

// sif ranks by smooth-inverse-frequency averages of word vectors (weight a/(a+p(w))),
// with the documents' first principal component removed from documents and queries.
func (c *collection) sif(w *dense, a float64) ranker {
	k := w.cols
	freq := make([]float64, len(c.words))
	var total float64
	for _, t := range c.toks {
		for _, x := range t {
			if i, ok := c.vocab[x]; ok {
				freq[i]++
				total++
			}
		}
	}
	embed := func(t []string) []float64 {
		v := make([]float64, k)
		for _, x := range t {
			if i, ok := c.vocab[x]; ok {
				wt := a / (a + freq[i]/total)
				wr := w.row(i)
				for j := range v {
					v[j] += wt * wr[j]
				}
			}
		}
		return v
	}
	docs := newDense(len(c.ids), k)
	for i, t := range c.toks {
		copy(docs.row(i), embed(t))
	}
	// First principal component by power iteration.
	pc := make([]float64, k)
	for j := range pc {
		pc[j] = 1 / math.Sqrt(float64(k))
	}
	for it := 0; it < 50; it++ {
		next := make([]float64, k)
		for i := 0; i < docs.rows; i++ {
			r := docs.row(i)
			d := dotf(r, pc)
			for j := range next {
				next[j] += d * r[j]
			}
		}
		n := math.Sqrt(dotf(next, next))
		for j := range next {
			next[j] /= n
		}
		pc = next
	}
	strip := func(v []float64) {
		d := dotf(v, pc)
		for j := range v {
			v[j] -= d * pc[j]
		}
	}
	for i := 0; i < docs.rows; i++ {
		strip(docs.row(i))
	}
	unitRows(docs)
	return func(query string) []string {
		q := embed(tokens(query))
		strip(q)
		score := make([]float64, docs.rows)
		for i := range score {
			score[i] = dotf(docs.row(i), q)
		}
		return c.topOf(score)
	}
}

// neighbours returns a word's m nearest words by cosine of word vectors, above floor,
// computed on first use.
func neighbours(w *dense, m int, floor float64) func(int) []scoredWord {
	memo := map[int][]scoredWord{}
	return func(i int) []scoredWord {
		if got, ok := memo[i]; ok {
			return got
		}
		ri := w.row(i)
		var best []scoredWord
		for j := 0; j < w.rows; j++ {
			if j == i {
				continue
			}
			s := dotf(ri, w.row(j))
			if s < floor {
				continue
			}
			if len(best) < m || s > best[len(best)-1].s {
				best = append(best, scoredWord{j, s})
				slices.SortFunc(best, func(a, b scoredWord) int { return cmp.Compare(b.s, a.s) })
				if len(best) > m {
					best = best[:m]
				}
			}
		}
		memo[i] = best
		return best
	}
}

type scoredWord struct {
	w int
	s float64
}

// expanded ranks by TF-IDF cosine with the query's words plus their neighbours, each
// neighbour weighted by its cosine times beta.
func (c *collection) expanded(nb func(int) []scoredWord, beta float64) ranker {
	return func(query string) []string {
		idx, val := c.weigh(tokens(query))
		q := map[int]float64{}
		for n, t := range idx {
			q[t] += val[n]
		}
		for n, t := range idx {
			for _, x := range nb(t) {
				q[x.w] += beta * x.s * val[n]
			}
		}
		score := make([]float64, c.tfidf.rows)
		for i := range score {
			for p := c.tfidf.ptr[i]; p < c.tfidf.ptr[i+1]; p++ {
				score[i] += c.tfidf.val[p] * q[c.tfidf.idx[p]]
			}
		}
		return c.topOf(score)
	}
}

// lexicalLists are bf's word ranking for every query, 100 deep, in process, with the
// word scores by query.
func lexicalLists(b *brain.Brain, queries map[string]string, order []string) (map[string][]string, map[string][]float64, error) {
	out, scores := map[string][]string{}, map[string][]float64{}
	for _, qid := range order {
		list, sc, err := wordScores(b, queries[qid])
		if err != nil {
			return nil, nil, err
		}
		out[qid], scores[qid] = list, sc
	}
	return out, scores, nil
}

// wordList is bf's word ranking of one query, 100 deep.
func wordList(b *brain.Brain, query string) ([]string, error) {
	list, _, err := wordScores(b, query)
	return list, err
}

// wordScores is bf's word ranking of one query, 100 deep, with each item's score.
func wordScores(b *brain.Brain, query string) ([]string, []float64, error) {
	s, err := bfsearch.Start(context.Background(), bfsearch.Request{Query: query, Limit: 10, Brains: []*brain.Brain{b}})
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	lists, err := s.Words(context.Background(), fuse.DefaultDepth)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	var scores []float64
	for _, h := range lists[0] {
		if id, ok := strings.CutPrefix(h.Ref, source+":"); ok {
			out = append(out, id)
			scores = append(scores, h.Score)
		}
	}
	return out, scores, nil
}

// expandedWords ranks with bf's own word ranking over the query followed by each
// query word's nearest m words (every query word is optional in bf search).
func (c *collection) expandedWords(b *brain.Brain, nb func(int) []scoredWord, m int) ranker {
	return func(query string) []string {
		extra := []string{}
		seen := map[string]bool{}
		for _, w := range tokens(query) {
			seen[w] = true
		}
		for _, w := range tokens(query) {
			i, ok := c.vocab[w]
			if !ok {
				continue
			}
			for n, x := range nb(i) {
				if n == m {
					break
				}
				if !seen[c.words[x.w]] {
					seen[c.words[x.w]] = true
					extra = append(extra, c.words[x.w])
				}
			}
		}
		list, err := wordList(b, query+" "+strings.Join(extra, " "))
		if err != nil {
			logf("expanded query: %v", err)
		}
		return list
	}
}

// rrf fuses the lexical and dense lists of a query by bf's rule: weighted reciprocal
// rank, K = 60, with the weights of the query's class, and the lexical items' strength
// (word score ÷ the best one); ties by reference.
func rrf(query string, lex []string, lexScores []float64, dense []string) []string {
	q, _ := fold.Parse(query)
	return rrfWith(fuse.WeightsOf(fuse.Classify(query, q)), lex, lexScores, dense)
}

// rrfWith is rrf with the given weights.
func rrfWith(w fuse.Weights, lex []string, lexScores []float64, dense []string) []string {
	score := map[string]float64{}
	for i, id := range lex {
		score[id] += w[fuse.Lexical] / float64(fuse.K+i+1)
		if lexScores[0] > 0 {
			score[id] += w[fuse.Strength] * lexScores[i] / lexScores[0] / float64(fuse.K+1)
		}
	}
	for i, id := range dense {
		score[id] += w[fuse.Dense] / float64(fuse.K+i+1)
	}
	ids := make([]string, 0, len(score))
	for id := range score {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b string) int {
		if x := cmp.Compare(score[b], score[a]); x != 0 {
			return x
		}
		return cmp.Compare(source+":"+a, source+":"+b)
	})
	return ids
}

// Variant is one corpus-trained dense list: alone, and fused with the lexical list.
type Variant struct {
	Name        string  `json:"name"`
	Alone       float64 `json:"ndcg_at_10_alone"`
	NDCG10      float64 `json:"ndcg_at_10_fused"`
	Recall10    float64 `json:"recall_at_10_fused"`
	TrainSecond float64 `json:"train_seconds"`
}

// builtinExperiment trains every variant on the corpus and scores it.
func builtinExperiment(corpus []byte, brainDir string, queries map[string]string, order []string, qrels map[string]map[string]int) ([]Variant, map[string]map[string][]string, error) {
	logf("builtin: lexical lists of %d queries", len(order))
	b, err := brain.Open(brainDir)
	if err != nil {
		return nil, nil, err
	}
	lex, lexScores, err := lexicalLists(b, queries, order)
	if err != nil {
		return nil, nil, err
	}
	c, err := newCollection(corpus)
	if err != nil {
		return nil, nil, err
	}
	logf("builtin: %d documents, %d words in two or more", len(c.ids), len(c.words))
	var out []Variant
	lists := map[string]map[string][]string{}
	byText := map[string]string{}
	for _, qid := range order {
		byText[queries[qid]] = qid
	}
	try := func(name string, train time.Duration, rank ranker) {
		v := Variant{Name: name, TrainSecond: math.Round(train.Seconds()*10) / 10}
		lists[name] = map[string][]string{}
		for _, qid := range order {
			d := rank(queries[qid])
			lists[name][qid] = d
			v.Alone += ndcgAt(10, d, qrels[qid])
			f := rrf(queries[qid], lex[qid], lexScores[qid], d)
			v.NDCG10 += ndcgAt(10, f, qrels[qid])
			v.Recall10 += recallAt(10, f, qrels[qid])
		}
		n := float64(len(order))
		v.Alone, v.NDCG10, v.Recall10 = v.Alone/n, v.NDCG10/n, v.Recall10/n
		logf("builtin: %-40s alone %.3f fused %.3f recall %.3f (%.1fs)", name, v.Alone, v.NDCG10, v.Recall10, v.TrainSecond)
		out = append(out, v)
	}
	try("none: the word ranking alone (control)", 0, func(q string) []string { return nil })
	try("TF-IDF cosine (control)", 0, c.expanded(func(int) []scoredWord { return nil }, 0))
	for _, k := range []int{100, 200, 300} {
		start := time.Now()
		s := randomizedSVD(c.tfidf, k, 10, 2, 1)
		train := time.Since(start)
		try(fmt.Sprintf("LSA %d", k), train, c.lsa(s))
		if k == 200 {
			w := wordVectors(svd{U: s.V, S: s.S})
			try("LSA 200 term vectors, query expansion", train, c.expanded(neighbours(w, 5, 0.5), 0.5))
		}
		if k == 300 {
			// The LSA list cut to the lexical list's items: it can only reorder them.
			score := c.lsaScores(s)
			at := map[string]int{}
			for i, id := range c.ids {
				at[id] = i
			}
			try("LSA 300 reordering the lexical top 100", train, func(q string) []string {
				sc := score(q)
				out := slices.Clone(lex[byText[q]])
				slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(sc[at[b]], sc[at[a]]) })
				return out
			})
		}
	}
	start := time.Now()
	p := c.ppmi(5)
	ps := randomizedSVD(p, 200, 10, 2, 1)
	w := wordVectors(ps)
	train := time.Since(start)
	logf("builtin: PPMI %d×%d, %d non-zero", p.rows, p.cols, len(p.idx))
	try("PPMI 200 + SIF", train, c.sif(w, 1e-3))
	nb := neighbours(w, 5, 0.5)
	try("PPMI 200 query expansion (5, β 0.5)", train, c.expanded(nb, 0.5))
	try("PPMI 200 query expansion (5, β 0.2)", train, c.expanded(nb, 0.2))
	try("bf word ranking, query + 2 PPMI neighbours per word", train, c.expandedWords(b, nb, 2))
	return out, lists, nil
}

// named is a variant's lists by query, as the recorded dense run is read.
type named struct {
	name  string
	lists map[string][]denseDoc
}

// best is the variant with the highest fused nDCG@10 (controls left out), its lists
// scored by rank so they replay like a recorded run.
func best(variants []Variant, lists map[string]map[string][]string) named {
	var top *Variant
	for i, v := range variants {
		if strings.HasSuffix(v.Name, "(control)") {
			continue
		}
		if top == nil || v.NDCG10 > top.NDCG10 {
			top = &variants[i]
		}
	}
	if top == nil {
		return named{}
	}
	out := named{name: top.Name, lists: map[string][]denseDoc{}}
	for qid, ids := range lists[top.Name] {
		for r, id := range ids {
			out.lists[qid] = append(out.lists[qid], denseDoc{id, 1 - float64(r)/float64(len(ids))})
		}
	}
	return out
}

// builtinMarkdown is the table of corpus-trained variants.
func builtinMarkdown(vs []Variant) string {
	var b strings.Builder
	b.WriteString("\nVectors learned from the corpus itself (no model), each ranking all documents and fused with the word ranking by bf's rule (weighted reciprocal rank, K = 60, the query class's weights):\n\n")
	b.WriteString("| dense list | nDCG@10 alone | nDCG@10 fused | Recall@10 fused | training |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, v := range vs {
		alone := fmt.Sprintf("%.3f", v.Alone)
		if v.Alone == 0 {
			alone = ""
		}
		fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.1f s |\n", v.Name, alone, v.NDCG10, v.Recall10, v.TrainSecond)
	}
	return b.String()
}
