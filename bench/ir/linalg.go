package main

import (
	"math"
	"math/rand/v2"
	"slices"
)

// sparse is a compressed-row matrix.
type sparse struct {
	rows, cols int
	ptr        []int
	idx        []int
	val        []float64
}

// dense is a row-major matrix.
type dense struct {
	rows, cols int
	v          []float64
}

func newDense(r, c int) *dense { return &dense{r, c, make([]float64, r*c)} }

func (d *dense) row(i int) []float64 { return d.v[i*d.cols : (i+1)*d.cols] }

// mul returns A·X (X is cols×k).
func (a *sparse) mul(x *dense) *dense {
	out := newDense(a.rows, x.cols)
	for i := 0; i < a.rows; i++ {
		o := out.row(i)
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			v := a.val[p]
			xr := x.row(a.idx[p])
			for j := range o {
				o[j] += v * xr[j]
			}
		}
	}
	return out
}

// tmul returns Aᵀ·Y (Y is rows×k).
func (a *sparse) tmul(y *dense) *dense {
	out := newDense(a.cols, y.cols)
	for i := 0; i < a.rows; i++ {
		yr := y.row(i)
		for p := a.ptr[i]; p < a.ptr[i+1]; p++ {
			v := a.val[p]
			o := out.row(a.idx[p])
			for j := range o {
				o[j] += v * yr[j]
			}
		}
	}
	return out
}

// orthonormalize makes the columns of y orthonormal by modified Gram-Schmidt (twice, for
// stability); a column that vanishes is left zero.
func orthonormalize(y *dense) {
	n, k := y.rows, y.cols
	col := make([][]float64, k)
	for j := 0; j < k; j++ {
		col[j] = make([]float64, n)
		for i := 0; i < n; i++ {
			col[j][i] = y.v[i*k+j]
		}
	}
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < k; j++ {
			for p := 0; p < j; p++ {
				d := dotf(col[j], col[p])
				for i := range col[j] {
					col[j][i] -= d * col[p][i]
				}
			}
			nrm := math.Sqrt(dotf(col[j], col[j]))
			if nrm < 1e-12 {
				clear(col[j])
				continue
			}
			for i := range col[j] {
				col[j][i] /= nrm
			}
		}
	}
	for j := 0; j < k; j++ {
		for i := 0; i < n; i++ {
			y.v[i*k+j] = col[j][i]
		}
	}
}

func dotf(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// svd is a truncated singular value decomposition A ≈ U·diag(S)·Vᵀ.
type svd struct {
	U *dense // rows×k
	S []float64
	V *dense // cols×k
}

// randomizedSVD computes the top k singular triplets of a by a seeded Gaussian sketch
// with oversampling and power iterations (Halko, Martinsson and Tropp).
func randomizedSVD(a *sparse, k, oversample, power int, seed uint64) svd {
	l := k + oversample
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	omega := newDense(a.cols, l)
	for i := range omega.v {
		omega.v[i] = rng.NormFloat64()
	}
	y := a.mul(omega)
	orthonormalize(y)
	for p := 0; p < power; p++ {
		z := a.tmul(y)
		orthonormalize(z)
		y = a.mul(z)
		orthonormalize(y)
	}
	// B = Qᵀ A is l×cols; B Bᵀ = W Λ Wᵀ gives B's left singular vectors.
	bt := a.tmul(y) // cols×l = Bᵀ
	g := newDense(l, l)
	for r := 0; r < bt.rows; r++ {
		br := bt.row(r)
		for i := 0; i < l; i++ {
			if br[i] == 0 {
				continue
			}
			gi := g.row(i)
			for j := 0; j < l; j++ {
				gi[j] += br[i] * br[j]
			}
		}
	}
	vals, vecs := jacobiEigen(g)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, z int) int {
		if vals[x] > vals[z] {
			return -1
		} else if vals[x] < vals[z] {
			return 1
		}
		return 0
	})
	out := svd{U: newDense(a.rows, k), S: make([]float64, k), V: newDense(a.cols, k)}
	for c := 0; c < k; c++ {
		e := order[c]
		s := math.Sqrt(math.Max(vals[e], 0))
		out.S[c] = s
		// U = Q W; V = Bᵀ W / s.
		for i := 0; i < a.rows; i++ {
			yr := y.row(i)
			var sum float64
			for j := 0; j < l; j++ {
				sum += yr[j] * vecs.v[j*l+e]
			}
			out.U.v[i*k+c] = sum
		}
		if s == 0 {
			continue
		}
		for i := 0; i < a.cols; i++ {
			br := bt.row(i)
			var sum float64
			for j := 0; j < l; j++ {
				sum += br[j] * vecs.v[j*l+e]
			}
			out.V.v[i*k+c] = sum / s
		}
	}
	// A deterministic sign: each V column's largest entry is positive.
	for c := 0; c < k; c++ {
		big, at := 0.0, 0
		for i := 0; i < a.cols; i++ {
			if v := math.Abs(out.V.v[i*k+c]); v > big {
				big, at = v, i
			}
		}
		if out.V.v[at*k+c] < 0 {
			for i := 0; i < a.cols; i++ {
				out.V.v[i*k+c] = -out.V.v[i*k+c]
			}
			for i := 0; i < a.rows; i++ {
				out.U.v[i*k+c] = -out.U.v[i*k+c]
			}
		}
	}
	return out
}

// jacobiEigen diagonalizes a symmetric matrix by cyclic Jacobi rotations: the eigenvalues
// and the eigenvectors as columns.
func jacobiEigen(m *dense) ([]float64, *dense) {
	n := m.rows
	a := slices.Clone(m.v)
	v := newDense(n, n)
	for i := 0; i < n; i++ {
		v.v[i*n+i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		var off float64
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-30 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := 0; k < n; k++ {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = c*akp - s*akq
					a[k*n+q] = s*akp + c*akq
				}
				for k := 0; k < n; k++ {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = c*apk - s*aqk
					a[q*n+k] = s*apk + c*aqk
				}
				for k := 0; k < n; k++ {
					vkp, vkq := v.v[k*n+p], v.v[k*n+q]
					v.v[k*n+p] = c*vkp - s*vkq
					v.v[k*n+q] = s*vkp + c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = a[i*n+i]
	}
	return vals, v
}
