package search

// BM25 as the word ranking uses it, in one place: FTS5's parameters, the column weights
// (as SQL for FTS5, as numbers for the scores computed from term counts, heavy.go), and
// FTS5's arithmetic.

// BM25's parameters in FTS5.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rankWeights are the column weights of the ranking (title, text, names, context),
// ttWeights those telling whether a passage matches by its title or text; rankBM25 and
// ttBM25 are the same weights as FTS5 calls (TestBM25Weights keeps them equal).
var (
	rankWeights = [4]float64{10, 1, 0.5, 3}
	ttWeights   = [4]float64{10, 1, 0, 0}
)

const (
	rankBM25 = `bm25(search, 10.0, 1.0, 0.5, 3.0)`
	ttBM25   = `bm25(search, 10.0, 1.0, 0.0, 0.0)`
)

// bm25Cap is k1 + 1, what one phrase's term frequency factor stays below.
const bm25Cap = bm25K1 + 1

// bm25 is FTS5's sum over the terms of idf × f(k1 + 1) / (f + k1(1 − b + b·D/avgdl)),
// each product rounded on its own as FTS5 rounds it: f are the terms' weighted counts in
// a row of d tokens.
func bm25(idf, freq []float64, d, avgdl float64) float64 {
	score := 0.0
	for k, f := range freq {
		score = score + float64(idf[k]*(float64(f*(bm25K1+1))/(f+float64(bm25K1*(1-bm25B+float64(bm25B*d)/avgdl)))))
	}
	return score
}
