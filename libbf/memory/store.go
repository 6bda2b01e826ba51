package memory

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/internal/fastlist"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/timestamp"
)

// lockName is the lock every memory writer of a brain holds while it re-reads and writes.
const lockName = "memory.lock"

// lockWait is how long a writer waits for another one.
const lockWait = 30 * time.Second

// Store is the memories of one brain.
type Store struct {
	Brain *brain.Brain
	// Now is the clock of rankings, briefs and saved times; nil: time.Now. A command pins
	// it (cli.Env.Clock) for reproducible rankings.
	Now func() time.Time
}

// now is the store's clock.
func (s *Store) now() time.Time { return timestamp.Clock(s.Now) }

// Loaded is every memory note of a brain, read from the files.
type Loaded struct {
	All      []*Memory
	ByRef    map[string]*Memory
	Warnings []string // notes skipped, with why
	titles   map[*Memory]foldedTitle
}

// foldedTitle is what the save guards compare of a memory's title, as its kept parse holds it.
type foldedTitle struct {
	Title string
	Words []string
}

// identity is m.Identity(), read from the parse when Load folded it.
func (l *Loaded) identity(m *Memory) string {
	if pn, ok := l.titles[m]; ok && pn.Words != nil {
		return m.Scope + "\x00" + pn.Title
	}
	return m.Identity()
}

// titleWords is titleWords(m.Title), read from the parse when Load folded it.
func (l *Loaded) titleWords(m *Memory) []string {
	if pn, ok := l.titles[m]; ok && pn.Words != nil {
		return pn.Words
	}
	return titleWords(m.Title)
}

// Load reads every memory note. A note with a bad field is skipped with a warning, never
// fatal; supersession links are resolved into SupersededBy.
func (s *Store) Load() (*Loaded, error) {
	dir := filepath.Join(s.Brain.Root, filepath.FromSlash(Folder))
	entries, err := fastlist.StatFolder(dir, func(name string, typ fs.FileMode) bool { return isMemoryFile(name, typ) })
	if errors.Is(err, fs.ErrNotExist) {
		return &Loaded{ByRef: map[string]*Memory{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot list memories: %w", Folder, err)
	}
	l := &Loaded{ByRef: make(map[string]*Memory, len(entries)), titles: make(map[*Memory]foldedTitle, len(entries))}
	// One array for every memory, its capacity set: the pointers into it stay valid.
	mems := make([]Memory, 0, len(entries))
	kept := s.readNotesCache()
	keep := make([]parsedNote, 0, len(entries))
	changed := false
	now := time.Now()
	for _, e := range entries {
		if !e.Stated {
			continue
		}
		p := Folder + "/" + e.Name
		pn, ok := parseEntry(dir, e, p, kept, now)
		if ok {
			keep = append(keep, pn)
			if k, was := kept[e.Name]; !was || k.Size != pn.Size || k.ModTime != pn.ModTime {
				changed = true
			}
		}
		if pn.Skipped != "" {
			l.Warnings = append(l.Warnings, pn.Skipped)
			continue
		}
		// A copy: the links resolved below must not reach the kept parse.
		mems = append(mems, pn.Memory)
		m := &mems[len(mems)-1]
		l.All = append(l.All, m)
		l.ByRef[p] = m
		l.titles[m] = foldedTitle{Title: pn.Title, Words: pn.Words}
	}
	if changed || len(keep) != len(kept) {
		s.writeNotesCache(keep)
	}
	for _, m := range l.All {
		for _, old := range m.Supersedes {
			if o := l.ByRef[old]; o != nil && !slices.Contains(o.SupersededBy, m.Ref) {
				o.SupersededBy = append(o.SupersededBy, m.Ref)
			}
		}
	}
	return l, nil
}

// isMemoryFile reports whether an entry of the memory folder is a memory note to read: a
// regular file, not hidden (a save's temporary file), named as a memory.
func isMemoryFile(name string, typ fs.FileMode) bool {
	return typ.IsRegular() && !strings.HasPrefix(name, ".") && IsMemoryPath(Folder+"/"+name)
}

// Parse reads one memory note file.
func Parse(p string, data []byte) (*Memory, []note.Problem) {
	n, err := note.Parse(p, data, note.KindOf(p))
	if err != nil {
		var np note.Problem
		if errors.As(err, &np) {
			return nil, []note.Problem{np}
		}
		return nil, []note.Problem{{Message: err.Error()}}
	}
	if len(n.Problems) > 0 {
		return nil, n.Problems
	}
	return FromNote(n, data)
}

func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Current follows supersession to the memories that replace m now (m itself when nothing
// replaced it).
func (l *Loaded) Current(m *Memory) []*Memory {
	var out []*Memory
	seen := map[string]bool{}
	var walk func(x *Memory)
	walk = func(x *Memory) {
		if seen[x.Ref] {
			return
		}
		seen[x.Ref] = true
		if len(x.SupersededBy) == 0 {
			out = append(out, x)
			return
		}
		for _, r := range x.SupersededBy {
			if y := l.ByRef[r]; y != nil {
				walk(y)
			}
		}
	}
	walk(m)
	return out
}

// Resolve finds a memory by its note path, its file name (with or without .md) or its
// bf:// address.
func (l *Loaded) Resolve(arg, flag string) (*Memory, error) {
	r := strings.TrimSpace(arg)
	if p, ok := addressRef(r); ok {
		r = p
	}
	if !strings.Contains(r, "/") {
		r = Folder + "/" + strings.TrimSuffix(r, ".md") + ".md"
	}
	if m := l.ByRef[r]; m != nil {
		return m, nil
	}
	return nil, &reply.InputError{Argument: flag, Err: fmt.Errorf("no memory %s; give a ref that bf recall printed, such as %s/NAME.md", quote(arg), Folder)}
}

func quote(s string) string { return fmt.Sprintf("%q", s) }

// Lock takes the brain's memory writer lock in its state folder.
func (s *Store) Lock(ctx context.Context) (*lock.Lock, error) {
	dir, err := brain.System().BrainStateDir(s.Brain.ID)
	if err != nil {
		return nil, err
	}
	l, err := lock.Acquire(ctx, dir, lockName, true, lockWait)
	if errors.Is(err, lock.ErrBusy) {
		return nil, errors.New("another bf remember kept the memory lock for 30 seconds; try again")
	}
	if err == nil {
		removeLeftovers(filepath.Join(s.Brain.Root, filepath.FromSlash(Folder)))
	}
	return l, err
}

// leftoverAge is how old a temporary file must be before it counts as left behind: a
// write takes milliseconds, so one older than this belongs to a writer that was killed.
const leftoverAge = time.Minute

// leftoverName is the name of durable.WriteFile's temporary file for a note: .NAME.md.DIGITS.tmp.
var leftoverName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\..+\.md\.[0-9]+\.tmp$`) })

// removeLeftovers deletes the temporary files a killed save left in dir. Same-folder
// temporary files are what makes a save atomic (the rename), but one left behind is
// staged by git add -A and removed by nothing else. Best effort: a save never fails on it.
func removeLeftovers(dir string) {
	// Listed without os.ReadDir's value per entry: a brief runs this over thousands.
	entries, err := fastlist.StatFolder(dir, isLeftover)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Stated && e.StatErr == nil && time.Since(time.Unix(0, e.ModTime)) > leftoverAge {
			_ = os.Remove(filepath.Join(dir, e.Name))
		}
	}
}

// isLeftover reports an entry of the memory folder named as a save's temporary file.
func isLeftover(name string, typ fs.FileMode) bool {
	return typ.IsRegular() && leftoverName().MatchString(name)
}

// Write stores a memory note atomically.
func (s *Store) Write(m *Memory) error {
	data, err := Render(m, s.Brain.Name)
	if err != nil {
		return err
	}
	dir := filepath.Join(s.Brain.Root, filepath.FromSlash(Folder))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%s: cannot create the memory folder: %w", Folder, err)
	}
	return durable.WriteFile(filepath.Join(s.Brain.Root, filepath.FromSlash(m.Ref)), data, 0o644)
}

// KeepHistory copies a memory file's current bytes under .history before it changes.
func (s *Store) KeepHistory(ref string, at time.Time) (string, error) {
	src := filepath.Join(s.Brain.Root, filepath.FromSlash(ref))
	data, err := os.ReadFile(src)
	if err != nil {
		return "", err
	}
	stem := strings.TrimSuffix(filepath.Base(ref), ".md")
	rel := historyFolder + "/" + stem + "/" + at.UTC().Format("20060102T150405.000000Z") + ".md"
	dst := filepath.Join(s.Brain.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	removeLeftovers(filepath.Dir(dst))
	return rel, durable.WriteFile(dst, data, 0o644)
}

// Remove deletes a memory note, keeping its last version in history.
func (s *Store) Remove(m *Memory, at time.Time) (string, error) {
	h, err := s.KeepHistory(m.Ref, at)
	if err != nil {
		return "", err
	}
	p := filepath.Join(s.Brain.Root, filepath.FromSlash(m.Ref))
	if err := os.Remove(p); err != nil {
		return "", err
	}
	return h, durable.SyncDir(filepath.Dir(p))
}

// fields are the declarations a brain needs for its memory notes.
func fields(brainName string) map[string]*config.Field {
	out := make(map[string]*config.Field, len(noteFields))
	for _, nf := range noteFields {
		out[nf.name] = nf.declare(brainName)
	}
	return out
}

// DeclareFields adds the memory fields bf.yaml lacks, so bf validate checks every memory
// field. It inserts lines into the user's bf.yaml and keeps the rest of its text as it is,
// comments included. A field declared with another type is an error naming it.
func (s *Store) DeclareFields() error {
	cfg := s.Brain.Config
	want := fields(s.Brain.Name)
	missing := false
	for _, name := range slices.Sorted(maps.Keys(want)) {
		f := want[name]
		have, ok := cfg.Fields[name]
		if !ok {
			missing = true
			continue
		}
		if have.Type != f.Type || have.Relation != f.Relation {
			return fmt.Errorf("bf.yaml: fields.%s: memories need type %s%s; rename the brain's own field or change its declaration", name, f.Type, map[bool]string{true: " with relation: true"}[f.Relation])
		}
	}
	if !missing {
		return nil
	}
	// What the file holds now decides, not the configuration this process loaded: another
	// save may have declared the fields since.
	file := filepath.Join(s.Brain.Root, config.FileName)
	src, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("bf.yaml: cannot declare the memory fields: %w", err)
	}
	now, err := config.Parse(config.FileName, src)
	if err != nil {
		return fmt.Errorf("bf.yaml: cannot declare the memory fields: %w", err)
	}
	add := map[string]*config.Field{}
	for name, f := range want {
		if _, ok := now.Fields[name]; !ok {
			add[name] = f
		}
	}
	if len(add) == 0 {
		return nil
	}
	data, err := config.AddFields(src, add)
	if err != nil {
		return fmt.Errorf("bf.yaml: cannot declare the memory fields: %w", err)
	}
	if err := durable.WriteFile(file, data, 0o644); err != nil {
		return err
	}
	if cfg.Fields == nil {
		cfg.Fields = map[string]*config.Field{}
	}
	for name, f := range add {
		cfg.Fields[name] = f
	}
	return nil
}
