package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/bfgo/bf/bench/gen"
)

// identityLimits are the page sizes at which every fixed query's reply is recorded, with
// --explain so that the replies show every score.
var identityLimits = []int{1, 3, 5, 10, 20, 50}

// identity writes the reply of every fixed query at each of identityLimits to file, one
// header line per reply, so that the replies of two builds of bf can be compared with cmp.
// With fused the replies are those of bf search --fused (each item explained already).
// The brain's copy is built first; nothing is timed.
func (b *bench) identity(file string, fused bool) error {
	if err := b.buildOnce(); err != nil {
		return err
	}
	mode := "--explain"
	if fused {
		mode = "--fused"
	}
	var out bytes.Buffer
	qs := gen.Queries(b.plan)
	for _, q := range qs {
		for _, limit := range identityLimits {
			args := append([]string{mode, "--limit", strconv.Itoa(limit)}, searchArgs(q)...)
			s, err := b.bfRun("search", args...)
			if err != nil {
				return err
			}
			fmt.Fprintf(&out, "### %s %q scope=%q limit=%d exit=%d\n", q.Kind, q.Text, q.Scope, limit, s.Exit)
			out.Write(bytes.TrimSpace(s.Stdout))
			out.WriteByte('\n')
		}
	}
	logf("%d replies of %d queries written to %s", len(qs)*len(identityLimits), len(qs), file)
	return os.WriteFile(file, out.Bytes(), 0o644)
}

// buildOnce builds the brain's copy, untimed.
func (b *bench) buildOnce() error {
	logf("building the cache")
	s, err := b.bfRun("build")
	if err != nil {
		return err
	}
	if s.Exit != 0 {
		return fmt.Errorf("bf build exited %d: %s", s.Exit, strings.TrimSpace(string(s.Stderr)))
	}
	return nil
}

// searchesOnly measures the warm searches alone and prints their table per query kind.
func (b *bench) searchesOnly() error {
	if err := b.searches(); err != nil {
		return err
	}
	if err := b.watchedIf(); err != nil {
		return err
	}
	fmt.Print(kindTable(b.res.Search))
	return nil
}

// lspOnly measures bf lsp alone and prints its table.
func (b *bench) lspOnly() error {
	if err := b.lsp(); err != nil {
		return err
	}
	fmt.Print(lspTable(b.res.LSP))
	return nil
}
