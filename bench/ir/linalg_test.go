package main

import (
	"math"
	"testing"
)

// A 4×3 matrix with singular values 5, 3 and 0 in known directions.
func TestRandomizedSVD(t *testing.T) {
	// A = 5·e1·f1ᵀ + 3·e2·f2ᵀ with e1 = (1,0,0,0), e2 = (0,1,0,0), f1 = (0,0,1), f2 = (1,0,0).
	a := &sparse{rows: 4, cols: 3, ptr: []int{0, 1, 2, 2, 2}, idx: []int{2, 0}, val: []float64{5, 3}}
	s := randomizedSVD(a, 2, 1, 2, 7)
	want := []float64{5, 3}
	for i, w := range want {
		if math.Abs(s.S[i]-w) > 1e-9 {
			t.Errorf("S[%d] = %v, want %v", i, s.S[i], w)
		}
	}
	// Signs are fixed: each V column's largest entry is positive.
	if math.Abs(s.V.v[2*2+0]-1) > 1e-9 || math.Abs(s.V.v[0*2+1]-1) > 1e-9 {
		t.Errorf("V = %v", s.V.v)
	}
	if math.Abs(s.U.v[0*2+0]-1) > 1e-9 || math.Abs(s.U.v[1*2+1]-1) > 1e-9 {
		t.Errorf("U = %v", s.U.v)
	}
	again := randomizedSVD(a, 2, 1, 2, 7)
	for i := range s.V.v {
		if s.V.v[i] != again.V.v[i] {
			t.Fatal("two runs with one seed differ")
		}
	}
}

func TestTokens(t *testing.T) {
	got := tokens("The ﬁrst T-cell of a 2 cells' study")
	want := []string{"first", "cell", "cells", "study"}
	if len(got) != len(want) {
		t.Fatalf("tokens = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("tokens = %q, want %q", got, want)
		}
	}
}
