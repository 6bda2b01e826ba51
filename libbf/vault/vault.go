// Package vault imports a folder of Markdown notes (an Obsidian vault, a zk notebook, any
// folder of .md files) into a brain as valid notes, leaving the source untouched.
//
// Each note gets a type, a title when no H1 gives one, an updated day and its tags (front
// matter and inline #tags); [[wikilinks]], ![[embeds]] and Markdown links become relative
// Markdown links resolved as Obsidian resolves them, with heading and block references
// turned into section slugs; names the format cannot hold are renamed and links follow.
// Everything is written into a hidden staging folder, checked with bf validate's own rules,
// then renamed into place: an import is whole or absent. The Report names every file,
// front matter key and link that could not be brought as it was.
package vault

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/ref"
)

// Sources a folder can be read as.
const (
	fromObsidian = "obsidian"
	fromMarkdown = "markdown"
)

// Options say what to import and where.
type Options struct {
	// Source is the folder to read; it is never changed.
	Source string
	// Dest is an absent or empty folder: a new brain, or a folder under projects/ or
	// concepts/ of an existing brain.
	Dest string
	// From is fromObsidian or fromMarkdown; empty picks obsidian when Source holds
	// .obsidian/.
	From string
	// Into is the authored root of a new brain's notes: concepts (the default) or projects.
	Into string
	// Types maps a source folder (slash path, letter case ignored) to the type of the notes
	// below it; the longest matching folder wins. Other notes take the root's type.
	Types map[string]string
	// Name is a new brain's name; empty derives it from Dest's folder name.
	Name string
	// DryRun reports what would be done and writes nothing.
	DryRun bool
}

// InputError is invalid input: the argument it names and the fix.
type InputError struct {
	Argument string
	Err      error
}

func (e *InputError) Error() string { return e.Argument + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputf(arg, format string, args ...any) error {
	return &InputError{Argument: arg, Err: fmt.Errorf(format, args...)}
}

// Report is the reply of bf import. Source files are named by their path in the source
// folder, notes and copies by their brain-relative path. Its fields are declared in the
// order of their JSON keys, so the reply lists its keys sorted like every reply.
type Report struct {
	Brain      string       `json:"brain"`
	Changed    []Change     `json:"changed"`
	Converted  []Moved      `json:"converted"`
	Copied     []Moved      `json:"copied"`
	Created    bool         `json:"created"`
	Dropped    []Dropped    `json:"dropped"`
	DryRun     bool         `json:"dry_run"`
	Folder     string       `json:"folder"`
	From       string       `json:"from"`
	Renamed    []Renamed    `json:"renamed"`
	Unresolved []Unresolved `json:"unresolved"`
}

// Moved pairs a source file with the brain file it became.
type Moved struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Renamed is a file whose name changed on the way in, and why.
type Renamed struct {
	From   string `json:"from"`
	Reason string `json:"reason"`
	To     string `json:"to"`
}

// Dropped is a file (Key empty) or a front matter key, tag or alias of a note that was
// not brought, and why.
type Dropped struct {
	File   string `json:"file"`
	Key    string `json:"key,omitempty"`
	Reason string `json:"reason"`
}

// Unresolved is a link that names nothing in the source folder: kept as text.
type Unresolved struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Link   string `json:"link"`
	Reason string `json:"reason"`
}

// Change is something the import did to a note beyond converting links.
type Change struct {
	Change string `json:"change"`
	File   string `json:"file"`
}

func (r *Report) drop(file, key, reason string) {
	r.Dropped = append(r.Dropped, Dropped{File: file, Key: key, Reason: reason})
}

func (r *Report) change(file, format string, args ...any) {
	r.Changed = append(r.Changed, Change{File: file, Change: fmt.Sprintf(format, args...)})
}

func (r *Report) sort() {
	sort.SliceStable(r.Dropped, func(i, j int) bool { return r.Dropped[i].File < r.Dropped[j].File })
	sort.SliceStable(r.Changed, func(i, j int) bool { return r.Changed[i].File < r.Changed[j].File })
	sort.SliceStable(r.Unresolved, func(i, j int) bool {
		a, b := r.Unresolved[i], r.Unresolved[j]
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	for _, l := range []*[]Moved{&r.Converted, &r.Copied} {
		sort.Slice(*l, func(i, j int) bool { return (*l)[i].From < (*l)[j].From })
	}
	sort.Slice(r.Renamed, func(i, j int) bool { return r.Renamed[i].From < r.Renamed[j].From })
}

// target is where an import goes.
type target struct {
	root     string         // absolute brain folder (the new brain's final place when created)
	folder   string         // brain-relative folder of the notes
	create   bool           // a new brain is created at root
	name     string         // the brain's name
	cfg      *config.Config // its configuration
	reserved map[string][]string
}

// Import reads opt.Source and writes it into opt.Dest (see Options).
func Import(ctx context.Context, opt Options) (*Report, error) {
	src, err := filepath.Abs(opt.Source)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(src)
	if err != nil || !st.IsDir() {
		return nil, inputf("SOURCE", "%s is not a folder; name the vault or notes folder to import", opt.Source)
	}
	dest, err := filepath.Abs(opt.Dest)
	if err != nil {
		return nil, err
	}
	if within(dest, src) || within(src, dest) {
		return nil, inputf("DEST", "DEST and SOURCE must not contain each other; import into a folder outside the source")
	}
	from := opt.From
	switch from {
	case "":
		from = fromMarkdown
		if exists(filepath.Join(src, ".obsidian")) {
			from = fromObsidian
		}
	case fromObsidian, fromMarkdown:
	default:
		return nil, inputf("--from", "expected obsidian or markdown")
	}
	for folder, typ := range opt.Types {
		if strings.TrimSpace(typ) == "" || len([]rune(typ)) > 128 || strings.ContainsFunc(typ, isControl) {
			return nil, inputf("--type", "%s: a type is 1 to 128 characters without control characters", folder)
		}
	}
	t, err := locate(dest, opt)
	if err != nil {
		return nil, err
	}
	imp := &importer{opt: opt, src: src, dest: dest, from: from, t: t,
		excluded: map[string]string{}, badKeys: map[string]map[string]string{}}
	return imp.run(ctx)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// locate decides where notes go: into a new brain at dest, or into dest under an
// authored root of the brain that encloses it.
func locate(dest string, opt Options) (*target, error) {
	if entries, err := os.ReadDir(dest); err == nil {
		for _, e := range entries {
			if e.Name() == config.FileName {
				return nil, inputf("DEST", "%s is a brain; name an empty folder inside it, such as %s", dest, filepath.Join(dest, "concepts", "vault"))
			}
		}
		if len(entries) > 0 {
			return nil, inputf("DEST", "%s is not empty; import into an absent or empty folder", dest)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, inputf("DEST", "%s: %s", dest, reason(err))
	}
	for dir := filepath.Dir(dest); ; dir = filepath.Dir(dir) {
		if exists(filepath.Join(dir, config.FileName)) {
			return existing(dir, dest, opt)
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	into := opt.Into
	if into == "" {
		into = "concepts"
	}
	if into != "concepts" && into != "projects" {
		return nil, inputf("--into", "expected concepts or projects")
	}
	name := opt.Name
	if name == "" {
		name = brain.FoldName(filepath.Base(dest))
		if !ref.ValidName(name) {
			return nil, inputf("--name", "cannot derive a brain name from %s; pass --name NAME (a lowercase letter, then letters, digits or hyphens)", filepath.Base(dest))
		}
	} else if !ref.ValidName(name) {
		return nil, inputf("--name", "use a lowercase letter, then lowercase letters, digits or hyphens, 64 characters at most")
	}
	return &target{
		root: dest, folder: into, create: true, name: name, cfg: config.Starter(name),
		// bf init writes these; the import names around them.
		reserved: map[string][]string{"concepts": {"index.md", "welcome.md"}},
	}, nil
}

// existing checks dest inside the brain at root.
func existing(root, dest string, opt Options) (*target, error) {
	cfg, err := config.Load(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", root, err)
	}
	rel, _ := filepath.Rel(root, dest)
	rel = filepath.ToSlash(rel)
	top, _, _ := strings.Cut(rel, "/")
	if top != "concepts" && top != "projects" {
		return nil, inputf("DEST", "%s is inside the brain %s but not under its projects/ or concepts/; name a folder there, such as %s", dest, root, filepath.Join(root, "concepts", filepath.Base(dest)))
	}
	if opt.Into != "" && opt.Into != top {
		return nil, inputf("--into", "DEST is under %s/; leave --into out or name a folder under %s/", top, opt.Into)
	}
	if opt.Name != "" {
		return nil, inputf("--name", "DEST is inside the brain %s, which already has a name", cfg.Name)
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return nil, inputf("DEST", "%s: names starting with . are hidden from a brain; choose a visible folder name", rel)
		}
	}
	return &target{root: root, folder: rel, name: cfg.Name, cfg: cfg}, nil
}
