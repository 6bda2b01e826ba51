//go:build unix

package read

// Benchmarks of whole page and item reads (open, freshness check, the page's queries), run
// over an existing built brain named by BF_BENCH_BRAIN with
//
//	BF_BENCH_BRAIN=/path/to/brain go test -run '^$' -bench Read -benchtime 20x ./libbf/read
//
// Refs the brain lacks are skipped. With bf watch keeping that brain fresh, the freshness
// check is a sync with the watcher and what remains is the page's own work. They never run
// in make test (without BF_BENCH_BRAIN they are skipped).

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
)

// benchRefs are the pages and items read: home, a folder, the generator's hub note, a
// month, a day, the tasks page and a record. BF_BENCH_REFS (comma-separated) replaces them.
var benchRefs = []string{"", "projects", "projects/support/share-ledger.md", "2026-11", "2026-11-15",
	"tasks", "tickets:INFRA-1426"}

func BenchmarkRead(b *testing.B) {
	root := os.Getenv("BF_BENCH_BRAIN")
	if root == "" {
		b.Skip("BF_BENCH_BRAIN names no built brain")
	}
	refs := benchRefs
	if s := os.Getenv("BF_BENCH_REFS"); s != "" {
		refs = strings.Split(s, ",")
	}
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, ref := range refs {
		name := ref
		if name == "" {
			name = "home"
		}
		b.Run(strings.ReplaceAll(name, "/", "_"), func(b *testing.B) {
			once := func() error {
				br, err := brain.Open(root)
				if err != nil {
					b.Fatal(err)
				}
				_, err = Run(context.Background(), Request{Ref: ref, Brains: []*brain.Brain{br}, Now: at, Location: time.UTC})
				return err
			}
			if err := once(); err != nil {
				b.Skipf("%q: %v", ref, err)
			}
			start := cpu()
			for b.Loop() {
				if err := once(); err != nil {
					b.Fatal(err)
				}
			}
			// On a shared machine the CPU a read takes says more than its wall time.
			b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// cpu is the CPU time (user and system) of this process so far.
func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
