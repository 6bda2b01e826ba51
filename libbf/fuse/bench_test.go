package fuse

// Benchmarks of fused search beside word search over an existing built brain, run with
//
//	BF_BENCH_BRAIN=DIR go test -run '^$' -bench Fused -benchtime 20x ./libbf/fuse
//
// (DIR built first with bf build; BF_BENCH_QUERIES may list queries separated by "|").
// Without BF_BENCH_BRAIN they are skipped; they never run in make test.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

func benchQueries(b *testing.B) (string, []string) {
	root := os.Getenv("BF_BENCH_BRAIN")
	if root == "" {
		b.Skip("BF_BENCH_BRAIN names no built brain")
	}
	qs := []string{"ledger", "payment refund invoice"}
	if s := os.Getenv("BF_BENCH_QUERIES"); s != "" {
		qs = strings.Split(s, "|")
	}
	return root, qs
}

// BenchmarkFused runs each query as a word search and as a fused search, the brain opened
// anew each time as bf search does.
func BenchmarkFused(b *testing.B) {
	root, qs := benchQueries(b)
	for _, mode := range []string{"words", "fused"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				for _, q := range qs {
					br, err := brain.Open(root)
					if err != nil {
						b.Fatal(err)
					}
					req := search.Request{Query: q, Brains: []*brain.Brain{br}}
					if mode == "words" {
						_, err = search.Run(context.Background(), req)
					} else {
						_, err = Run(context.Background(), Request{Search: req})
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// TestWriteReplies writes, for each query of BF_BENCH_QUERY_FILE (lines of kind, scope
// and query separated by tabs), its fused reply and its word reply with --explain at six
// page sizes, at a fixed time, to BF_BENCH_REPLIES: two builds' files compare byte for
// byte. Skipped without those variables.
func TestWriteReplies(t *testing.T) {
	root, file, out := os.Getenv("BF_BENCH_BRAIN"), os.Getenv("BF_BENCH_QUERY_FILE"), os.Getenv("BF_BENCH_REPLIES")
	if root == "" || file == "" || out == "" {
		t.Skip("BF_BENCH_BRAIN, BF_BENCH_QUERY_FILE and BF_BENCH_REPLIES name no brain, queries and output")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		for _, limit := range []int{1, 3, 5, 10, 20, 50} {
			br, err := brain.Open(root)
			if err != nil {
				t.Fatal(err)
			}
			req := search.Request{Query: f[2], Scope: f[1], Limit: limit, Brains: []*brain.Brain{br}, Now: at, Location: time.UTC}
			fused, ferr := Run(context.Background(), Request{Search: req})
			words, werr := Explain(context.Background(), req)
			for _, r := range []struct {
				mode string
				out  *search.Reply
				err  error
			}{{"fused", fused, ferr}, {"words", words, werr}} {
				fmt.Fprintf(&buf, "### %s %s %q scope=%q limit=%d err=%v\n", r.mode, f[0], f[2], f[1], limit, r.err)
				if r.out != nil {
					b, err := reply.Encode(r.out)
					if err != nil {
						t.Fatal(err)
					}
					buf.Write(b)
					buf.WriteByte('\n')
				}
			}
		}
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
