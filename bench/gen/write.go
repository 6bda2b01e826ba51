package gen

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bfgo/bf/libbf/provenance"
)

// Stats describes a written brain.
type Stats struct {
	Notes   int            `json:"notes"`
	Records map[string]int `json:"records"`
	Files   int            `json:"files"`
	Bytes   int64          `json:"bytes"`
}

// ConfigText is the brain's bf.yaml: the relations notes and records use and one
// disabled sensor per source (the records are already collected).
func (p *Plan) ConfigText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated benchmark brain (generator version %d, seed %d).\nversion: 8\nname: %s\nfields:\n",
		Version, p.Config.Seed, BrainName)
	for _, f := range []struct{ name, desc, extra string }{
		{"author", "Person explicitly credited as author.", ""},
		{"owner", "Person or team explicitly responsible for the subject.", ""},
		{"depends-on", "The subject requires the target to operate or remain valid.", ""},
		{"related-to", "An explicit association without a more specific known relation.", ""},
		{"participant", "Person who took part in a meeting or work session.", ""},
		{"organizer", "Person who called and ran a meeting or work session.", "    broader: participant\n"},
	} {
		fmt.Fprintf(&b, "  %s:\n    description: %s\n    type: identity\n    cardinality: many\n    relation: true\n%s",
			f.name, f.desc, f.extra)
	}
	b.WriteString("  kind:\n    description: Common kind of item, such as a runbook, a review or an experiment.\n    type: string\n")
	b.WriteString("sensors:\n")
	for _, f := range p.Folders() {
		fmt.Fprintf(&b, "  %s:\n    command: [sensors/%s.sh, \"{{start}}\", \"{{end}}\"]\n    enabled: false\n", f[0], f[0])
		if f[1] == "chat" {
			b.WriteString("    priority: low\n")
		}
	}
	return b.String()
}

// Generate writes the brain of p into dir, which must be empty or absent, with workers
// goroutines (0: one per core).
func Generate(dir string, p *Plan, workers int) (Stats, error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	st := Stats{Notes: len(p.Notes), Records: map[string]int{}}
	for k, s := range Sources {
		st.Records[s] = p.PerSrc[k]
	}
	dirs := map[string]bool{"sensors": true}
	for _, n := range p.Notes {
		dirs[path.Dir(n.Path)] = true
	}
	for _, f := range p.Folders() {
		dirs["memories/"+f[0]] = true
	}
	sorted := make([]string, 0, len(dirs))
	for d := range dirs {
		sorted = append(sorted, d)
	}
	sort.Strings(sorted)
	for _, d := range sorted {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
			return st, err
		}
	}
	// The records count as collected: each source's ledger names them, as a collection's
	// transaction would have written it.
	var ledgerMu sync.Mutex
	ledgers := map[string]provenance.Ledger{}
	var bytes atomic.Int64
	write := func(rel string, data []byte, mode os.FileMode) error {
		bytes.Add(int64(len(data)))
		return os.WriteFile(filepath.Join(dir, filepath.FromSlash(rel)), data, mode)
	}
	if err := write("bf.yaml", []byte(p.ConfigText()), 0o644); err != nil {
		return st, err
	}
	for _, f := range p.Folders() {
		if err := write("sensors/"+f[0]+".sh", []byte("#!/bin/sh\n# Records of this source are generated, not collected.\nexit 0\n"), 0o755); err != nil {
			return st, err
		}
	}

	total := len(p.Notes) + p.Config.Records
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				var err error
				if i < len(p.Notes) {
					err = write(p.Notes[i].Path, p.NoteText(i), 0o644)
				} else {
					var rel string
					var data []byte
					if rel, data, err = p.RecordFile(i - len(p.Notes)); err == nil {
						err = write(rel, data, 0o644)
						src := path.Base(path.Dir(rel))
						ledgerMu.Lock()
						if ledgers[src] == nil {
							ledgers[src] = provenance.Ledger{}
						}
						ledgers[src].Wrote(path.Base(rel), data)
						ledgerMu.Unlock()
					}
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(total))
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return st, firstErr
	}
	for _, f := range p.Folders() {
		if l := ledgers[f[0]]; l != nil {
			if err := write("memories/"+f[0]+"/"+provenance.LedgerName, l.Encode(), 0o644); err != nil {
				return st, err
			}
		}
	}
	st.Files = total + 1 + len(p.Folders())
	st.Bytes = bytes.Load()
	return st, firstErr
}
