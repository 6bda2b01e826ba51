package vault

import (
	"path"
	"sort"
	"strings"
)

// index finds source files the way Obsidian resolves a link: a path from the vault root or
// from the linking note's folder, else the shortest path ending with the name, letter case
// ignored throughout. Folder qualifiers (folder/Note) pick among notes sharing a name.
type index struct {
	exts   map[string]bool    // lowercased extensions of the files
	byPath map[string][]*file // lowercased source path -> files
	byName map[string][]*file // lowercased base name -> files
}

func newIndex(files []*file) *index {
	x := &index{exts: map[string]bool{}, byPath: map[string][]*file{}, byName: map[string][]*file{}}
	for _, f := range files {
		if f.out == "" {
			continue
		}
		lp := strings.ToLower(f.src)
		x.byPath[lp] = append(x.byPath[lp], f)
		x.byName[path.Base(lp)] = append(x.byName[path.Base(lp)], f)
		x.exts[path.Ext(lp)] = true
	}
	return x
}

// resolve finds the file linkpath names from the note at from. ambiguous reports that
// several files matched and the choice followed Obsidian's preferences.
func (x *index) resolve(from, linkpath string) (f *file, ambiguous bool) {
	lp := strings.TrimSpace(linkpath)
	if lp == "" {
		return nil, false
	}
	var tries []string
	if path.Ext(lp) == "" || !x.known(lp) {
		tries = append(tries, lp+".md", lp)
	} else {
		tries = append(tries, lp, lp+".md")
	}
	for _, t := range tries {
		if f, amb, ok := x.lookup(from, t); ok {
			return f, amb
		}
	}
	return nil, false
}

// known reports whether some file carries lp's extension, so "Note.v2" is read as a note
// name rather than a file of type .v2.
func (x *index) known(lp string) bool {
	return x.exts[strings.ToLower(path.Ext(lp))]
}

func (x *index) lookup(from, lp string) (*file, bool, bool) {
	dir := path.Dir(from)
	if dir == "." {
		dir = ""
	}
	exact := func(p string) (*file, bool) {
		if strings.HasPrefix(p, "../") || p == ".." {
			return nil, false
		}
		fs := x.byPath[strings.ToLower(p)]
		for _, f := range fs {
			if f.src == p {
				return f, true
			}
		}
		if len(fs) > 0 {
			return fs[0], true
		}
		return nil, false
	}
	rooted := strings.TrimPrefix(lp, "/")
	relative := strings.HasPrefix(lp, "./") || strings.HasPrefix(lp, "../")
	if relative {
		if f, ok := exact(path.Join(dir, lp)); ok {
			return f, false, true
		}
		return nil, false, false
	}
	if f, ok := exact(path.Clean(rooted)); ok {
		return f, false, true
	}
	if f, ok := exact(path.Join(dir, rooted)); ok {
		return f, false, true
	}
	low := strings.ToLower(path.Clean(rooted))
	var cands []*file
	for _, f := range x.byName[path.Base(low)] {
		if s := strings.ToLower(f.src); s == low || strings.HasSuffix(s, "/"+low) {
			cands = append(cands, f)
		}
	}
	if len(cands) == 0 {
		return nil, false, false
	}
	// Obsidian's order: a note beside the linking one, then the shortest path.
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		ai, bi := path.Dir(a.src) == path.Dir(from), path.Dir(b.src) == path.Dir(from)
		if ai != bi {
			return ai
		}
		if len(a.src) != len(b.src) {
			return len(a.src) < len(b.src)
		}
		return a.src < b.src
	})
	return cands[0], len(cands) > 1, true
}
