package vault

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/scan"
)

// maxPath bounds a brain-relative note path once percent-encoded, as the format does.
const maxPath = 7988

// file is one file of the source folder.
type file struct {
	src   string // slash path relative to the source folder, as found (maybe not UTF-8)
	note  bool   // a Markdown note (.md, any letter case)
	out   string // brain-relative slash path it is written to; "" when not brought
	size  int64
	mtime int64 // Unix seconds
}

// walk lists the source folder: regular files, sorted by path. Hidden names (.obsidian,
// .trash, .git, .zk) and symbolic links are left out and reported.
func walk(root string, r *Report) ([]*file, error) {
	var out []*file
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			r.drop(rel(root, p), "", "cannot read: "+reason(err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		name := d.Name()
		sp := rel(root, p)
		switch {
		case strings.HasPrefix(name, "."):
			why := "hidden name: tool folders and hidden files are not notes"
			if name == ".obsidian" {
				why = "Obsidian's settings folder, not notes"
			}
			r.drop(sp, "", why)
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			r.drop(sp, "", "symbolic link: not followed; copy the file into the folder instead")
			return nil
		case d.IsDir():
			return nil
		case !d.Type().IsRegular():
			r.drop(sp, "", "not a regular file")
			return nil
		}
		info, err := d.Info()
		if err != nil {
			r.drop(sp, "", "cannot read: "+reason(err))
			return nil
		}
		out = append(out, &file{
			src: sp, note: strings.EqualFold(path.Ext(name), ".md"),
			size: info.Size(), mtime: info.ModTime().Unix(),
		})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].src < out[j].src })
	return out, err
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(r)
}

func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// namer gives every source file a brain-relative path under folder: names the format
// cannot hold are cleaned, names that collide (ignoring letter case, so the brain also
// works on case-insensitive disks) get -1, -2…, and index.md and log.md, which are special
// files in a brain, are renamed.
type namer struct {
	root    string                     // brain-relative folder of the import, e.g. concepts/vault
	depth   int                        // segments of folder
	folders map[string]string          // source folder -> output folder
	taken   map[string]map[string]bool // output folder -> folded names in use
}

func newNamer(folder string, reserved map[string][]string) *namer {
	n := &namer{root: folder, depth: strings.Count(folder, "/") + 1, folders: map[string]string{"": folder}, taken: map[string]map[string]bool{}}
	for dir, names := range reserved {
		for _, name := range names {
			n.claim(dir, name)
		}
	}
	return n
}

func (n *namer) claim(dir, name string) {
	if n.taken[dir] == nil {
		n.taken[dir] = map[string]bool{}
	}
	n.taken[dir][strings.ToLower(name)] = true
}

func (n *namer) free(dir, name string) bool { return !n.taken[dir][strings.ToLower(name)] }

// place returns the output path of f and why it differs from the source name ("" when
// it does not).
func (n *namer) place(f *file) (string, string) {
	dir, base := path.Split(f.src)
	outDir, why := n.root, ""
	if dir != "" {
		outDir, why = n.folder(strings.TrimSuffix(dir, "/"))
	}
	clean := cleanName(base)
	if f.note {
		clean = strings.TrimSuffix(clean, path.Ext(clean)) + ".md"
	}
	if clean != base && why == "" {
		why = "the name holds characters a brain's paths cannot"
		if strings.EqualFold(base, clean) {
			why = "notes end in .md"
		}
	}
	if f.note && (clean == "index.md" || clean == "log.md") {
		why = clean + " is a special file in a brain (a folder index or an update log)"
		clean = suffixed(clean, 1)
	}
	name := clean
	for i := 1; !n.free(outDir, name); i++ {
		name = suffixed(clean, i)
		why = "another file already has this name, ignoring letter case"
	}
	n.claim(outDir, name)
	return path.Join(outDir, name), why
}

// folder maps a source folder to its output folder, creating names the same way as for
// files and folding folders nested beyond the format's depth into one name.
func (n *namer) folder(src string) (string, string) {
	if out, ok := n.folders[src]; ok {
		return out, ""
	}
	parent, base := path.Split(src)
	parent = strings.TrimSuffix(parent, "/")
	outParent, why := n.folder(parent)
	name := cleanName(base)
	if name != base {
		why = "a folder name holds characters a brain's paths cannot"
	}
	if strings.Count(outParent, "/")+2 > scan.MaxDepth {
		// Too deep: the rest of the path becomes part of the deepest allowed folder's name.
		name = path.Base(outParent) + "-" + name
		outParent = path.Dir(outParent)
		why = "folders nest deeper than " + strconv.Itoa(scan.MaxDepth) + " levels"
		out := path.Join(outParent, name)
		n.folders[src] = out
		return out, why
	}
	clean := name
	for i := 1; !n.free(outParent, name); i++ {
		name = clean + "-" + strconv.Itoa(i)
		why = "another folder already has this name, ignoring letter case"
	}
	n.claim(outParent, name)
	out := path.Join(outParent, name)
	n.folders[src] = out
	return out, why
}

func suffixed(name string, i int) string {
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(i) + ext
}

// cleanName makes a file or folder name the format can hold: valid UTF-8, without control
// or invisible format characters and without backslashes, each replaced by '-'.
func cleanName(s string) string {
	s = strings.ToValidUTF8(s, "-")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\\' || r == utf8.RuneError {
			return '-'
		}
		return r
	}, s)
	if strings.TrimSpace(s) == "" || s == "." || s == ".." {
		return "untitled"
	}
	return s
}

// tooLong reports a brain-relative path longer than the format allows once
// percent-encoded.
func tooLong(p string) bool { return len(ref.EscapePath(p)) > maxPath }

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
