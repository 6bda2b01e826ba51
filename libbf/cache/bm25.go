package cache

// BM25 over the search table, in one place: FTS5's parameters, the column weights (as SQL
// for FTS5, as numbers for scores computed from term counts) and FTS5's arithmetic.

// BM25's parameters in FTS5.
const (
	bM25K1 = 1.2
	bM25B  = 0.75
)

// RankWeights are the column weights of the ranking (title, text, names, context), and
// TitleTextWeights those telling whether a passage matches by its title or text; RankBM25
// and TitleTextBM25 are the same weights as FTS5 calls (TestBM25Weights keeps them equal).
var (
	RankWeights      = [4]float64{10, 1, 0.5, 3}
	TitleTextWeights = [4]float64{10, 1, 0, 0}
)

const (
	RankBM25      = `bm25(search, 10.0, 1.0, 0.5, 3.0)`
	TitleTextBM25 = `bm25(search, 10.0, 1.0, 0.0, 0.0)`
)

// BM25Cap is k1 + 1, what one phrase's term frequency factor stays below.
const BM25Cap = bM25K1 + 1

// BM25 is FTS5's sum over the terms of idf × f(k1 + 1) / (f + k1(1 − b + b·D/avgdl)),
// each product rounded on its own as FTS5 rounds it: freq are the terms' weighted counts
// in a row of d tokens.
func BM25(idf, freq []float64, d, avgdl float64) float64 {
	score := 0.0
	for k, f := range freq {
		score = score + float64(idf[k]*(float64(f*(bM25K1+1))/(f+float64(bM25K1*(1-bM25B+float64(bM25B*d)/avgdl)))))
	}
	return score
}
