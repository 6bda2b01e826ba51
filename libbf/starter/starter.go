// Package starter writes a new brain: the files `bf init` creates in an empty folder.
package starter

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/config"
)

//go:embed files
var files embed.FS

// errNotEmpty is returned for a target that already holds files: init never touches them.
var errNotEmpty = errors.New("initialization requires a new, empty or freshly cloned directory")

// Result is the reply of bf init.
type Result struct {
	Created []string `json:"created"`
	Name    string   `json:"name"`
	Path    string   `json:"path"`
}

// Options choose what Write creates.
type Options struct {
	Name string
	// Full also creates the folders for records, assets, programs and skills.
	Full bool
}

// fullFolders are the extra folders of `bf init --full`.
var fullFolders = []string{"assets", "memories", "routines", "sensors", "skills"}

// Write creates a starter brain at dir, which must be absent, empty, or hold only .git.
func Write(dir string, opt Options) (*Result, error) {
	if err := checkEmpty(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the brain folder: %w", err)
	}
	cfg, err := config.Starter(opt.Name).Marshal()
	if err != nil {
		return nil, err
	}
	res := &Result{Name: opt.Name, Path: dir}
	write := func(rel string, data []byte) error {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// O_EXCL: a file that appeared meanwhile is never overwritten.
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(data); err != nil {
			f.Close()
			return err
		}
		res.Created = append(res.Created, rel)
		return f.Close()
	}
	if err := write("bf.yaml", cfg); err != nil {
		return nil, err
	}
	err = fs.WalkDir(files, "files", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, "files/")
		if rel == "gitignore" || rel == "gitattributes" {
			rel = "." + rel // embed skips dot files, so the templates go without the dot
		}
		if path.Ext(rel) == ".yaml" {
			data = []byte(strings.NewReplacer("{{version}}", strconv.Itoa(config.Version), "{{name}}", opt.Name).Replace(string(data)))
		}
		return write(rel, data)
	})
	if err != nil {
		return nil, err
	}
	folders := []string{"actions", "projects"}
	if opt.Full {
		folders = append(folders, fullFolders...)
	}
	for _, f := range folders {
		if err := os.Mkdir(filepath.Join(dir, f), 0o755); err != nil {
			return nil, err
		}
		res.Created = append(res.Created, f+"/")
	}
	sort.Strings(res.Created)
	return res, nil
}

func checkEmpty(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read the target folder: %w", err)
	}
	for _, e := range entries {
		if e.Name() != ".git" {
			return errNotEmpty
		}
	}
	return nil
}

// Note is the text of a new note at rel (a brain-relative path under an authored root),
// written as the starter brain writes its own notes: front matter with the type its folder
// gives, the title and status draft, then the title as the first heading.
func Note(rel, title string) []byte {
	typ := map[string]string{"projects": "project", "concepts": "concept", "actions": "action"}[strings.SplitN(rel, "/", 2)[0]]
	shown := title
	if strings.ContainsAny(title, ":#'\"[]{}&*!|>%@`,\\") || strings.TrimSpace(title) != title {
		shown = strconv.Quote(title)
	}
	var b strings.Builder
	b.WriteString("---\n")
	if typ != "" {
		b.WriteString("type: " + typ + "\n")
	}
	b.WriteString("title: " + shown + "\nstatus: draft\n---\n\n# " + title + "\n")
	return []byte(b.String())
}

// TitleOf is the title a new note at rel gets from its file name: the name without .md,
// '-' and '_' read as spaces, the first letter capitalised.
func TitleOf(rel string) string {
	name := strings.TrimSuffix(path.Base(rel), ".md")
	name = strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }), " ")
	if name == "" {
		return "Untitled"
	}
	r := []rune(name)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
