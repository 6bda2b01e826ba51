package main

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/bfgo/bf/bench/internal/measure"
)

// The int8 experiment: each vector stored as int8 values with its own scale (its largest
// magnitude maps to 127), the query likewise; a first pass ranks items by the integer dot
// products, then the head's chunks are scored exactly in float32. It runs in memory, on as
// many goroutines as the dense strategy uses, beside the exact float32 scan of the same
// vectors, and reports recall@10 of the result against the exact ranking.

// int8Head is how many items the first pass keeps for exact rescoring: four times the
// dense strategy's depth.
const int8Head = 400

type quantized struct {
	dims   int
	codes  []int8
	scales []float32
	flat   []float32
}

func quantize(c *corpus) *quantized {
	q := &quantized{dims: c.dims, codes: make([]int8, len(c.vecs)*c.dims), scales: make([]float32, len(c.vecs)), flat: make([]float32, 0, len(c.vecs)*c.dims)}
	for i, v := range c.vecs {
		q.scales[i] = quantizeInto(q.codes[i*c.dims:(i+1)*c.dims], v)
		q.flat = append(q.flat, v...)
	}
	return q
}

// quantizeInto writes v's int8 codes into out and returns the scale of one step.
func quantizeInto(out []int8, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, x, -x)
	}
	if m == 0 {
		return 0
	}
	step := m / 127
	for i, x := range v {
		r := x / step
		if r >= 0 {
			out[i] = int8(r + 0.5)
		} else {
			out[i] = int8(r - 0.5)
		}
	}
	return step
}

type scored struct {
	item  int64
	score float32
}

// best keeps the k best of scored items, best first, ties by item.
func best(all []scored, k int) []scored {
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return int(a.item - b.item)
	})
	return all[:min(k, len(all))]
}

// parts runs f over the chunk range cut into one part per processor at item boundaries
// (four chunks an item) and returns each part's result.
func parts(n int, f func(from, to int) []scored) []scored {
	p := runtime.GOMAXPROCS(0)
	out := make([][]scored, p)
	var wg sync.WaitGroup
	for i := range p {
		from, to := n*i/p/4*4, n*(i+1)/p/4*4
		if i == p-1 {
			to = n
		}
		wg.Go(func() { out[i] = f(from, to) })
	}
	wg.Wait()
	return slices.Concat(out...)
}

// exactTop is the float32 scan: each item's best chunk.
func (q *quantized) exactTop(query []float32, k int) []scored {
	d := q.dims
	return best(parts(len(q.scales), func(from, to int) []scored {
		var out []scored
		for i := from; i < to; i += 4 {
			var b float32 = -2
			for j := i; j < min(i+4, to); j++ {
				b = max(b, dot(q.flat[j*d:(j+1)*d], query))
			}
			out = append(out, scored{itemOf(i), b})
		}
		return best(out, k)
	}), k)
}

// int8Top is the int8 pass over every chunk, then the head rescored exactly.
func (q *quantized) int8Top(query []float32, k int) []scored {
	d := q.dims
	codes := make([]int8, d)
	qs := quantizeInto(codes, query)
	head := best(parts(len(q.scales), func(from, to int) []scored {
		var out []scored
		for i := from; i < to; i += 4 {
			var b float32 = -2
			for j := i; j < min(i+4, to); j++ {
				b = max(b, float32(dot8(q.codes[j*d:(j+1)*d], codes))*q.scales[j]*qs)
			}
			out = append(out, scored{itemOf(i), b})
		}
		return best(out, int8Head)
	}), int8Head)
	exact := make([]scored, len(head))
	for n, h := range head {
		first := int(h.item-1) * 4
		var b float32 = -2
		for j := first; j < min(first+4, len(q.scales)); j++ {
			b = max(b, dot(q.flat[j*d:(j+1)*d], query))
		}
		exact[n] = scored{h.item, b}
	}
	return best(exact, k)
}

func dot(a, q []float32) float32 {
	a = a[:len(q)]
	var s float32
	for i, x := range q {
		s += a[i] * x
	}
	return s
}

func dot8(a, q []int8) int32 {
	a = a[:len(q)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += int32(a[i]) * int32(q[i])
		s1 += int32(a[i+1]) * int32(q[i+1])
		s2 += int32(a[i+2]) * int32(q[i+2])
		s3 += int32(a[i+3]) * int32(q[i+3])
	}
	for ; i < len(q); i++ {
		s0 += int32(a[i]) * int32(q[i])
	}
	return s0 + s1 + s2 + s3
}

// measureInt8 times both scans on n generated chunks and measures the recall of the int8
// one's ten best items against the exact ten.
func measureInt8(o options, n int) Int8Row {
	c := generate(n, o.dims)
	q := quantize(c)
	c.vecs = nil // the flat copy and the codes are all the scans read
	row := Int8Row{Chunks: n, Head: int8Head}
	var exact, approx []time.Duration
	found, total := 0, 0
	qc := &corpus{dims: o.dims, vecs: make([][]float32, n)}
	for i := range n {
		qc.vecs[i] = q.flat[i*o.dims : (i+1)*o.dims]
	}
	for i := range o.queries {
		query := qc.query(fmt.Sprintf("query %d", i))
		t0 := time.Now()
		want := q.exactTop(query, o.depth)
		exact = append(exact, time.Since(t0))
		t0 = time.Now()
		got := q.int8Top(query, o.depth)
		approx = append(approx, time.Since(t0))
		top := map[int64]bool{}
		for _, s := range want[:min(10, len(want))] {
			top[s.item] = true
		}
		for _, s := range got[:min(10, len(got))] {
			if top[s.item] {
				found++
			}
		}
		total += min(10, len(want))
	}
	row.Exact, row.Int8 = measure.Summarize(exact), measure.Summarize(approx)
	row.Recall = float64(found) / float64(total)
	return row
}
