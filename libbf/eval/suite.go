package eval

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/read"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
	"github.com/bfgo/bf/libbf/yamlx"
)

// Limits of suites.
const (
	// defaultPath is where suites live without --path.
	defaultPath = "evals"
	// maxSuites bounds the suites of one run.
	maxSuites = 100
	// maxSuiteBytes bounds one suite file.
	maxSuiteBytes = 1 << 20
	// maxCases bounds the cases of one suite.
	maxCases = 200
	// maxDepth bounds the folders walked below the suite path.
	maxDepth = 64
)

// Search modes of a case.
const (
	modeWords = "words"
	modeFused = "fused"
)

// Case is one retrieval case as a suite states it.
type Case struct {
	Name string
	// Query is a search case's query; Read is nil for a search case.
	Query string
	Scope string
	// Limit is how many leading results the case checks (default 10).
	Limit int
	// Mode is a search case's mode: modeWords (the word ranking, as bf search) or
	// modeFused (as bf search --fused).
	Mode string
	// Read is a read case's ref ("" reads home).
	Read   *string
	Expect []string
	Forbid []string
	Text   []string
	Empty  bool
}

// suite is one loaded suite file.
type suite struct {
	// Path is the file, relative to the brain root, with slashes.
	Path  string
	Cases []Case
}

// suiteError is a suite that cannot be loaded: a missing, unreadable or malformed file,
// or a case breaking the suite format. Its text names the suite and the field.
type suiteError struct {
	Suite string
	// Field is the dotted path of the faulty value (cases.2.scope), or "".
	Field  string
	Reason string
}

func (e *suiteError) Error() string {
	if e.Field == "" {
		return "invalid " + e.Suite + ": " + e.Reason
	}
	return "invalid " + e.Suite + ": " + e.Field + ": " + e.Reason
}

// suiteFile is the YAML shape of a suite; pointers tell an absent key from a zero value.
type suiteFile struct {
	Version int         `json:"version"`
	Cases   []*caseFile `json:"cases"`
}

type caseFile struct {
	Name   *string  `json:"name"`
	Query  *string  `json:"query"`
	Scope  *string  `json:"scope"`
	Limit  *int     `json:"limit"`
	Mode   *string  `json:"mode"`
	Read   *string  `json:"read"`
	Expect []string `json:"expect"`
	Forbid []string `json:"forbid"`
	Text   []string `json:"text"`
	Empty  *bool    `json:"empty"`
}

// findSuites lists the suite files under rel (a folder or one .yaml/.yml file) in the
// brain at root, in path order, as brain-relative slash paths.
func findSuites(root, rel string) ([]string, error) {
	if isSuiteName(rel) {
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist; add retrieval cases before running bf eval", rel)
		}
		if err == nil && !info.Mode().IsRegular() {
			return nil, &suiteError{Suite: rel, Reason: "expected a regular file, not a symlink or special file"}
		}
		return []string{rel}, nil
	}
	var found []string
	base := filepath.Join(root, filepath.FromSlash(rel))
	err := filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		r, _ := filepath.Rel(root, p)
		r = filepath.ToSlash(r)
		if d.IsDir() {
			below, _ := filepath.Rel(base, p)
			if below != "." && strings.Count(filepath.ToSlash(below), "/") >= maxDepth {
				return fmt.Errorf("%s: folders nest more than %d levels", r, maxDepth)
			}
			return nil
		}
		if !isSuiteName(d.Name()) {
			return nil
		}
		if !d.Type().IsRegular() {
			return &suiteError{Suite: r, Reason: "expected a regular file, not a symlink or special file"}
		}
		found = append(found, r)
		return nil
	})
	if err != nil {
		var se *suiteError
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, fmt.Errorf("cannot list the suites: %s", reasonOf(err))
	}
	sort.Strings(found)
	return found, nil
}

func isSuiteName(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml")
}

// reasonOf keeps an OS error's cause, without the absolute path.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// loadSuite reads and checks one suite file.
func loadSuite(root, rel string) (*suite, error) {
	data, err := readSuite(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s does not exist; add retrieval cases before running bf eval", rel)
		}
		return nil, &suiteError{Suite: rel, Reason: err.Error()}
	}
	return parseSuite(rel, data)
}

// readSuite reads a regular file of at most maxSuiteBytes without following a symlink or
// blocking on a FIFO.
func readSuite(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, errors.New("expected a regular file, not a symlink or special file")
		}
		return nil, errors.New("cannot read the file: " + reasonOf(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, errors.New("cannot read the file: " + reasonOf(err))
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("expected a regular file, not a symlink or special file")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSuiteBytes+1))
	if err != nil {
		return nil, errors.New("cannot read the file: " + reasonOf(err))
	}
	if len(data) > maxSuiteBytes {
		return nil, errors.New("file exceeds 1 MiB")
	}
	return data, nil
}

// parseSuite checks a suite's bytes: the version first, then the strict shape, then each
// case (field syntax, then the rules tying its keys together, then bf search's own checks
// of a query).
func parseSuite(name string, data []byte) (*suite, error) {
	fail := func(field, format string, args ...any) error {
		return &suiteError{Suite: name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	tree, err := yamlx.Parse("", data)
	if err != nil {
		return nil, yamlError(name, err)
	}
	if err := checkVersion(name, tree); err != nil {
		return nil, err
	}
	if field := nullAt(tree, ""); field != "" {
		return nil, fail(field, "expected a value")
	}
	var sf suiteFile
	if err := yamlx.Assign("", tree, &sf, yamlx.Strict); err != nil {
		return nil, yamlError(name, err)
	}
	if len(sf.Cases) == 0 || len(sf.Cases) > maxCases {
		return nil, fail("cases", "expected 1 to %d cases", maxCases)
	}
	s := &suite{Path: name}
	seen := map[string]bool{}
	for i, cf := range sf.Cases {
		p := yamlx.Join("cases", i)
		c, err := checkCase(cf, p, fail)
		if err != nil {
			return nil, err
		}
		if seen[c.Name] {
			return nil, fail("", "duplicate evaluation case names")
		}
		seen[c.Name] = true
		s.Cases = append(s.Cases, c)
	}
	return s, nil
}

func yamlError(name string, err error) error {
	var ye *yamlx.Error
	if errors.As(err, &ye) {
		if ye.Path == "" && ye.Line > 0 {
			return &suiteError{Suite: name, Reason: fmt.Sprintf("line %d: %s", ye.Line, ye.Reason)}
		}
		return &suiteError{Suite: name, Field: ye.Path, Reason: ye.Reason}
	}
	return &suiteError{Suite: name, Reason: err.Error()}
}

// checkVersion wants the brain format first, so a suite of another format gets one clear
// sentence instead of a list of unknown keys.
func checkVersion(name string, tree any) error {
	top, ok := tree.(map[string]any)
	if tree != nil && !ok {
		return &suiteError{Suite: name, Reason: "expected a mapping with version and cases"}
	}
	v, present := top["version"]
	if !present || v == nil {
		return &config.VersionError{File: name, Found: -1}
	}
	n, ok := v.(int64)
	if !ok || n < 0 || n > 999 {
		return &config.VersionError{File: name, Found: -2}
	}
	if n != config.Version {
		return &config.VersionError{File: name, Found: int(n)}
	}
	return nil
}

// nullAt returns the path of the first null value in the tree, or "": an empty value in a
// suite is a mistake, never a default.
func nullAt(v any, p string) string {
	switch x := v.(type) {
	case nil:
		return p
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if f := nullAt(x[k], yamlx.Join(p, k)); f != "" {
				return f
			}
		}
	case []any:
		for i, item := range x {
			if f := nullAt(item, yamlx.Join(p, i)); f != "" {
				return f
			}
		}
	}
	return ""
}

func checkCase(cf *caseFile, p string, fail func(field, format string, args ...any) error) (Case, error) {
	if cf == nil {
		return Case{}, fail(p, "expected a mapping")
	}
	if cf.Name == nil {
		return Case{}, fail(p+".name", "required")
	}
	c := Case{
		Name: *cf.Name, Scope: deref(cf.Scope), Read: cf.Read,
		Expect: cf.Expect, Forbid: cf.Forbid, Text: cf.Text, Limit: search.DefaultLimit,
	}
	if !nonblank(c.Name) || strings.IndexFunc(c.Name, unicode.IsControl) >= 0 {
		return Case{}, fail(p+".name", "expected a nonblank name without control characters")
	}
	if cf.Query != nil {
		c.Query = *cf.Query
	}
	if cf.Empty != nil {
		c.Empty = *cf.Empty
	}
	// Field syntax first: a malformed ref or scope names its field.
	if cf.Scope != nil && c.Scope != "" {
		if err := search.Check(search.Request{Query: "x", Scope: c.Scope}); err != nil {
			return Case{}, fail(p+".scope", "%s", reasonOfInput(err))
		}
	}
	if cf.Read != nil {
		if err := checkRef(*cf.Read); err != nil {
			return Case{}, fail(p+".read", "%s", reasonOfInput(err))
		}
	}
	for _, list := range []struct {
		key    string
		values []string
		refs   bool
	}{{"expect", c.Expect, true}, {"forbid", c.Forbid, true}, {"text", c.Text, false}} {
		for i, v := range list.values {
			f := yamlx.Join(p+"."+list.key, i)
			if !nonblank(v) {
				return Case{}, fail(f, "expected a nonblank string")
			}
			if list.refs {
				if err := checkRef(v); err != nil {
					return Case{}, fail(f, "%s", reasonOfInput(err))
				}
			}
		}
	}
	if cf.Mode != nil {
		if *cf.Mode != modeWords && *cf.Mode != modeFused {
			return Case{}, fail(p+".mode", "expected %s or %s", modeWords, modeFused)
		}
		c.Mode = *cf.Mode
	}
	if cf.Limit != nil {
		if *cf.Limit < 1 || *cf.Limit > search.MaxLimit {
			return Case{}, fail(p+".limit", "expected an integer from 1 to %d", search.MaxLimit)
		}
		c.Limit = *cf.Limit
	}
	// Then the rules tying the keys together.
	switch {
	case c.Empty == (len(c.Expect) > 0 || len(c.Text) > 0):
		return Case{}, fail(p, "case %s: use expect/text, or empty: true", c.Name)
	case (c.Read == nil) == !nonblank(c.Query):
		return Case{}, fail(p, "case %s: use either query or read", c.Name)
	case c.Read != nil && (c.Scope != "" || cf.Limit != nil):
		return Case{}, fail(p, "case %s: scope and limit apply to query cases", c.Name)
	case c.Read != nil && cf.Mode != nil:
		return Case{}, fail(p, "case %s: mode applies to query cases", c.Name)
	}
	// Last, bf search's own checks: a query it would refuse fails while loading.
	if c.Read == nil {
		err := search.Check(search.Request{Query: c.Query, Scope: c.Scope, Limit: c.Limit})
		if err != nil {
			return Case{}, fail(p, "case %s: %s", c.Name, err.Error())
		}
	}
	return c, nil
}

// checkRef checks a read ref's syntax as bf read does before reading any brain.
func checkRef(s string) error {
	return read.Check(read.Request{Ref: s})
}

// reasonOfInput is the reason of an invalid input error, without its argument.
func reasonOfInput(err error) string {
	var ie *reply.InputError
	if errors.As(err, &ie) {
		return ie.Err.Error()
	}
	var se *search.InputError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return err.Error()
}

func nonblank(s string) bool { return strings.TrimSpace(s) != "" }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// cleanSuitePath checks --path: a folder or suite file inside the brain, relative to its
// root (an absolute path inside the root is made relative).
func cleanSuitePath(root, p string) (string, error) {
	if p == "" {
		p = defaultPath
	}
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(root, p)
		if err != nil {
			return "", errPath
		}
		p = r
	}
	p = path.Clean(filepath.ToSlash(p))
	if p == ".." || strings.HasPrefix(p, "../") || strings.HasPrefix(p, "/") {
		return "", errPath
	}
	if strings.IndexFunc(p, unicode.IsControl) >= 0 {
		return "", errPath
	}
	return p, nil
}

var errPath = &reply.InputError{Argument: "path", Err: errors.New("expected a folder or a .yaml suite inside the brain")}
