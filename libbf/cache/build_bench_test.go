package cache

// BenchmarkBuild times full builds of an existing brain named by BF_BENCH_BRAIN (the bench
// generator's brain, for example), with
//
//	BF_BENCH_BRAIN=DIR go test -run '^$' -bench Build -benchtime 3x -cpuprofile cpu.out ./libbf/cache
//
// It writes the brain's .bf folder, so point it at a copy. Without the variable it is
// skipped; it never runs in make test.

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/bfgo/bf/libbf/brain"
)

func BenchmarkBuild(b *testing.B) {
	root := os.Getenv("BF_BENCH_BRAIN")
	if root == "" {
		b.Skip("BF_BENCH_BRAIN names no brain")
	}
	br, err := brain.Open(root)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := os.RemoveAll(filepath.Join(root, Dir)); err != nil {
			b.Fatal(err)
		}
		if _, err := Build(context.Background(), br, nil); err != nil {
			b.Fatal(err)
		}
	}
}
