package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/lock"
)

// Usage counts are machine state: how often recall returned each memory. They live in the
// brain's state folder, never in the notes, so recalling never changes a file of the brain.
const (
	usesFile = "memory-uses.json"
	usesLock = "memory-uses.lock"
)

// Uses reads the usage counts by ref; a missing file is no uses.
func (s *Store) Uses() (map[string]int, error) {
	p, err := brain.System().BrainStatePath(s.Brain.ID)
	if err != nil {
		return nil, err
	}
	return readUses(filepath.Join(p, usesFile))
}

func readUses(file string) (map[string]int, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]int{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read memory usage counts: %w", file, err)
	}
	uses := map[string]int{}
	if err := json.Unmarshal(data, &uses); err != nil {
		// A damaged counter file only loses a small boost; start again rather than fail recall.
		return map[string]int{}, nil
	}
	return uses, nil
}

// Touch adds one use to each ref.
func (s *Store) Touch(ctx context.Context, refs []string) error {
	if len(refs) == 0 {
		return nil
	}
	dir, err := brain.System().BrainStateDir(s.Brain.ID)
	if err != nil {
		return err
	}
	lk, err := lock.Acquire(ctx, dir, usesLock, true, lockWait)
	if err != nil {
		return fmt.Errorf("cannot take the memory usage lock: %w", err)
	}
	defer lk.Release()
	file := filepath.Join(dir, usesFile)
	uses, err := readUses(file)
	if err != nil {
		return err
	}
	for _, r := range refs {
		uses[r]++
	}
	data, err := json.Marshal(uses)
	if err != nil {
		return err
	}
	return durable.WriteFile(file, append(data, '\n'), 0o600)
}

// forgetUses drops a removed memory's count.
func (s *Store) forgetUses(ctx context.Context, ref string) error {
	dir, err := brain.System().BrainStateDir(s.Brain.ID)
	if err != nil {
		return err
	}
	lk, err := lock.Acquire(ctx, dir, usesLock, true, lockWait)
	if err != nil {
		return err
	}
	defer lk.Release()
	file := filepath.Join(dir, usesFile)
	uses, err := readUses(file)
	if err != nil {
		return err
	}
	if _, ok := uses[ref]; !ok {
		return nil
	}
	delete(uses, ref)
	data, _ := json.Marshal(uses)
	return durable.WriteFile(file, append(data, '\n'), 0o600)
}
