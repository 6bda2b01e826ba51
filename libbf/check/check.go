// Package check is bf validate: every rule a brain's files must keep, reported without
// changing anything.
//
// It reads bf.yaml (already loaded by the brain), every note under the authored roots and
// every record under memories/, then checks metadata, links, relations, identities,
// records and programs. Problems make the brain invalid; warnings never do.
package check

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/note"
	"github.com/bfgo/bf/libbf/obsidian"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/scan"
	"github.com/bfgo/bf/libbf/store"
)

// Limits on what one report lists.
const (
	maxProblems  = 200
	maxWarnings  = 200
	maxSpellings = 20
)

// Report is the reply of bf validate. Keys print in sorted order at every level, like
// every reply, so outputs diff and compare byte for byte.
type Report struct {
	Notes             int          `json:"notes"`
	Problems          []Problem    `json:"problems"`
	ProblemsTruncated bool         `json:"problems_truncated,omitempty"`
	Records           int          `json:"records"`
	Unresolved        []Unresolved `json:"unresolved,omitempty"`
	Valid             bool         `json:"valid"`
	Warnings          []Warning    `json:"warnings"`
	WarningsTruncated bool         `json:"warnings_truncated,omitempty"`
}

// Problem is one broken rule in one file.
type Problem struct {
	Error string `json:"error"`
	File  string `json:"file"`
}

// Warning is something worth a look that does not make the brain invalid.
type Warning struct {
	File       string     `json:"file,omitempty"`
	Identities []Spelling `json:"identities,omitempty"`
	Warning    string     `json:"warning"`
}

// Spelling is one way an identity is written, with the number of files that write it so.
type Spelling struct {
	Files    int    `json:"files"`
	Identity string `json:"identity"`
}

// Unresolved is a bf:// target in another brain, listed without being opened.
type Unresolved struct {
	File   string `json:"file"`
	Target string `json:"target"`
}

// Brain checks b and returns its report. An error means the check could not run at all
// (the tree could not be listed); every problem with the brain's own files is in the report.
// skipped are the brains selection left out, such as a broken brains: reference of b's
// bf.yaml: they make b invalid too, since its configuration names them.
func Brain(b *brain.Brain, skipped []brain.Problem) (*Report, error) {
	tree, err := scan.Brain(b.Root)
	if err != nil {
		return nil, err
	}
	c := newChecker(b, tree)
	for _, p := range skipped {
		c.problem(cmp.Or(p.File, config.FileName), "%s", p.Error)
	}
	c.run()
	return c.report(), nil
}

func newChecker(b *brain.Brain, tree *scan.Tree) *checker {
	return &checker{
		root:    b.Root,
		name:    b.Name,
		cfg:     b.Config,
		tree:    tree,
		notes:   map[string]*note.Note{},
		records: map[ref.RecordRef]*record.Record{},
		owners:  map[string][]string{},
		written: map[string]map[string]bool{},
		dirs:    map[string]map[string]bool{},
		folders: map[string]bool{},
	}
}

type checker struct {
	root, name string
	realRoot   string // root with symbolic links resolved, computed on first use
	cfg        *config.Config
	tree       *scan.Tree

	notes    map[string]*note.Note            // parsed notes by path
	records  map[ref.RecordRef]*record.Record // valid records by ref
	entities map[string]string                // entity address path -> note path
	owners   map[string][]string              // identity -> files claiming it
	written  map[string]map[string]bool       // identity spelling -> files writing it
	dirs     map[string]map[string]bool       // folder listings, for exact-case existence
	folders  map[string]bool                  // folders under the authored roots

	problems   []Problem
	warnings   []Warning
	unresolved []Unresolved
	noteCount  int
	recCount   int

	// One note checked from given text (Loaded.Note): its path and text, where in it the
	// check is looking, and what it found there.
	buffer      string
	bufferData  []byte
	at          place
	findings    []Finding
	collectNote bool

	// index, when set, answers what the maps above would from the cache (Note).
	index *cacheIndex
}

// place is where in a note a check is looking: a line, a front matter field or a link.
type place struct {
	line        int
	field, link string
}

func (c *checker) problem(file, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.problems = append(c.problems, Problem{File: file, Error: msg})
	c.found(file, msg, false)
}

func (c *checker) warn(file, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.warnings = append(c.warnings, Warning{File: file, Warning: msg})
	c.found(file, msg, true)
}

// found keeps a finding of the note being checked alone, with where the check looked.
func (c *checker) found(file, msg string, warning bool) {
	if !c.collectNote || file != c.buffer {
		return
	}
	c.findings = append(c.findings, Finding{Message: msg, Warning: warning, Line: c.at.line, Field: c.at.field, Link: c.at.link})
}

func (c *checker) run() {
	c.load()
	for _, p := range slices.Sorted(maps.Keys(c.notes)) {
		c.checkNote(c.notes[p])
	}
	c.checkRecords()
	c.supersedesCycles()
	c.policy()
	c.identityWarnings()
}

// load reads what every later check looks up: the folders, the notes, the records and who
// claims each identity.
func (c *checker) load() {
	for _, p := range c.tree.Problems {
		c.problem(p.Path, "%s", p.Error)
	}
	// The record journal: the same diagnosis search and build give.
	if err := store.Check(c.root); err != nil {
		c.problem("memories/.pending", "%s", err)
	} else if bad, err := store.Interrupted(c.root); err == nil && bad {
		c.problem("memories/.pending", "%s", store.ErrInterrupted)
	}
	for _, f := range c.tree.Folders {
		c.folders[f] = true
	}
	c.programs()
	c.actions()
	c.parseNotes()
	c.parseRecords()
	c.claimIdentities()
}

func (c *checker) report() *Report {
	r := &Report{Notes: c.noteCount, Records: c.recCount, Problems: []Problem{}, Warnings: []Warning{}}
	// Files in path order, each file's problems in the order found, so reports diff well.
	slices.SortStableFunc(c.problems, func(a, b Problem) int { return cmp.Compare(a.File, b.File) })
	c.problems = slices.Compact(c.problems)
	r.Valid = len(c.problems) == 0
	if len(c.problems) > maxProblems {
		c.problems, r.ProblemsTruncated = c.problems[:maxProblems], true
	}
	r.Problems = append(r.Problems, c.problems...)
	if len(c.warnings) > maxWarnings {
		c.warnings, r.WarningsTruncated = c.warnings[:maxWarnings], true
	}
	r.Warnings = append(r.Warnings, c.warnings...)
	slices.SortFunc(c.unresolved, func(a, b Unresolved) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Target, b.Target))
	})
	r.Unresolved = slices.Compact(c.unresolved)
	return r
}

// parseNotes reads every Markdown file under the authored roots.
func (c *checker) parseNotes() {
	for _, f := range c.tree.Notes {
		c.noteCount++
		data, err := c.read(f.Path, note.MaxBytes)
		if err != nil {
			c.problem(f.Path, "%s", err)
			continue
		}
		if n := c.parseNote(f.Path, data); n != nil {
			c.notes[f.Path] = n
		}
	}
}

// parseNote parses one note's text, reporting a note that cannot be parsed and the
// wikilinks it holds.
func (c *checker) parseNote(rel string, data []byte) *note.Note {
	n, err := note.Parse(rel, data, note.KindOf(rel))
	if err != nil {
		c.problem(rel, "%s", err)
		return nil
	}
	text := body(data, n.BodyLine)
	if links := obsidian.Find(text); len(links) > 0 {
		c.at = place{line: n.BodyLine + strings.Count(text[:links[0].Start], "\n")}
		c.warn(rel, "[[wikilinks]] are plain text in a brain, not links (%d here): write them as Markdown links such as [Note](note.md); bf import converts a vault's (docs/import.md)", len(links))
		c.at = place{}
	}
	return n
}

// noteData is the text of a note: the given text for the note checked alone, else the file.
func (c *checker) noteData(rel string) ([]byte, error) {
	if c.collectNote && rel == c.buffer {
		return c.bufferData, nil
	}
	return c.read(rel, note.MaxBytes)
}

// body is the text of a note from its body line on: front matter values are data, and a
// [[link]] written there is no body text.
func body(data []byte, line int) string {
	s := string(data)
	for ; line > 1; line-- {
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			return ""
		}
		if strings.HasPrefix(s[i:], "\r\n") {
			i++
		}
		s = s[i+1:]
	}
	return s
}

// read returns a file's bytes, refusing files above limit without reading them.
func (c *checker) read(rel string, limit int64) ([]byte, error) {
	p := filepath.Join(c.root, filepath.FromSlash(rel))
	st, err := os.Lstat(p)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPath(err))
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("file is larger than %d MiB", limit>>20)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("cannot read the file: %w", unwrapPath(err))
	}
	return data, nil
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// exists reports whether rel names a file or folder in the brain, comparing names exactly
// even on a case-insensitive disk.
func (c *checker) exists(rel string) bool {
	if rel == "." || rel == "" {
		return true
	}
	dir, base := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir != "" && !c.exists(dir) {
		return false
	}
	names, ok := c.dirs[dir]
	if !ok {
		names = map[string]bool{}
		entries, _ := os.ReadDir(filepath.Join(c.root, filepath.FromSlash(cmp.Or(dir, "."))))
		for _, e := range entries {
			names[e.Name()] = true
		}
		c.dirs[dir] = names
	}
	return names[base]
}

// inside reports whether rel, with every symbolic link on its way followed, stays in the
// brain: a link to a symlink that points elsewhere reaches outside what bf may read.
func (c *checker) inside(rel string) bool {
	if c.realRoot == "" {
		real, err := filepath.EvalSymlinks(c.root)
		if err != nil {
			return false
		}
		c.realRoot = real
	}
	real, err := filepath.EvalSymlinks(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	r, err := filepath.Rel(c.realRoot, real)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

func (c *checker) isDir(rel string) bool {
	if c.folders[rel] || ref.IsAuthoredRoot(rel) {
		return c.exists(rel)
	}
	st, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(rel)))
	return err == nil && st.IsDir() && c.exists(rel)
}
