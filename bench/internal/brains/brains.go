// Package brains keeps the generator's brains in a cache folder between benchmark runs and
// gives each run a working copy made of hard links.
package brains

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/bench/gen"
)

// Info says which generated brain a run used and whether it was already cached.
type Info struct {
	Key             string    `json:"key"`
	Version         int       `json:"version"`
	Seed            uint64    `json:"seed"`
	Stats           gen.Stats `json:"stats"`
	Cached          bool      `json:"cached"`
	GenerateSeconds float64   `json:"generate_seconds,omitempty"`
}

// DefaultCache is BF_BENCH_CACHE, else bench/cache (ignored by Git).
func DefaultCache() string {
	if d := os.Getenv("BF_BENCH_CACHE"); d != "" {
		return d
	}
	return filepath.Join("bench", "cache")
}

// Ensure returns the generated brain of p in cache/KEY/brain, writing it first unless the
// cache already holds a complete one (cache/KEY/complete.json). logf reports progress.
func Ensure(cache string, p *gen.Plan, logf func(string, ...any)) (string, Info, error) {
	cfg := p.Config
	info := Info{Key: cfg.Key(), Version: gen.Version, Seed: cfg.Seed}
	dir := filepath.Join(cache, cfg.Key())
	brain := filepath.Join(dir, "brain")
	stamp := filepath.Join(dir, "complete.json")
	if b, err := os.ReadFile(stamp); err == nil && json.Unmarshal(b, &info.Stats) == nil {
		if _, err := os.Stat(brain); err == nil {
			info.Cached = true
			logf("using the cached brain %s", brain)
			return brain, info, nil
		}
	}
	logf("generating %d notes and %d records into %s", cfg.Notes, cfg.Records, brain)
	if err := os.RemoveAll(dir); err != nil {
		return "", info, err
	}
	start := time.Now()
	st, err := gen.Generate(brain, p, 0)
	if err != nil {
		return "", info, err
	}
	info.GenerateSeconds = time.Since(start).Seconds()
	info.Stats = st
	b, _ := json.Marshal(st)
	return brain, info, os.WriteFile(stamp, b, 0o644)
}

// LinkTree recreates dst as a copy of src made of hard links, so a run can edit and add
// files without touching the cached brain: edits replace files, never write into them.
func LinkTree(src, dst string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ".bf" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if err := os.Link(p, target); err != nil {
			data, rerr := os.ReadFile(p)
			if rerr != nil {
				return rerr
			}
			info, _ := d.Info()
			return os.WriteFile(target, data, info.Mode().Perm())
		}
		return nil
	})
}

// Size is the bytes of the regular files under dir.
func Size(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
