package brain

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bfgo/bf/libbf/durable"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/yamlx"
)

// Registry is the machine registry: brain names mapped to their folders, so brains can be
// selected by name from outside their folders. Its file has one key, brains, each entry
// holding only path (absolute or starting with ~):
//
//	brains:
//	  work:
//	    path: /home/me/work
type Registry struct {
	// File is the registry file, $XDG_CONFIG_HOME/bf/config.yaml.
	File string
	// Brains maps each registered name to its path as written (a leading ~ is kept).
	Brains map[string]string

	header string // leading comment lines, kept when the file is rewritten
	env    Env
}

// defaultHeader starts a registry file that had no leading comment.
const defaultHeader = "# bf machine registry: brain names and their folders (written by bf register)\n"

// registryWait bounds how long Register waits for another bf register to finish.
var registryWait = 30 * time.Second

// LoadRegistry reads the registry of this machine. A missing file is an empty registry.
func LoadRegistry() (*Registry, error) { return System().LoadRegistry() }

// LoadRegistry reads the registry under e's XDG_CONFIG_HOME or home.
func (e Env) LoadRegistry() (*Registry, error) {
	file, err := e.RegistryFile()
	if err != nil {
		return nil, err
	}
	r := &Registry{File: file, env: e}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r, nil
}

// Names lists the registered names in order.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.Brains))
	for n := range r.Brains {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Resolve returns the absolute folder registered under name, with ~ expanded.
func (r *Registry) Resolve(name string) (string, bool, error) {
	p, ok := r.Brains[name]
	if !ok {
		return "", false, nil
	}
	abs, err := r.env.expand(p)
	if err != nil {
		return "", true, err
	}
	return filepath.Clean(abs), true, nil
}

// read loads r.File into r.Brains and r.header.
func (r *Registry) read() error {
	r.Brains, r.header = map[string]string{}, ""
	data, err := readRegistryFile(r.File)
	if err != nil || data == nil {
		return err
	}
	brains, err := parseRegistry(r.File, data)
	if err != nil {
		return err
	}
	r.Brains, r.header = brains, leadingComments(data)
	return nil
}

// readRegistryFile returns the file's bytes, or nil when it does not exist. It refuses
// symlinks, FIFOs and other non-regular files without blocking on them, and files over
// 1 MiB.
func readRegistryFile(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if absent(err) {
			return nil, nil
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, failf(err, "%s: the registry must be a regular file, not a symlink; link its parent folder instead", file)
		}
		return nil, failf(err, "%s: cannot read the registry: %s", file, reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, failf(err, "%s: cannot read the registry: %s", file, reason(err))
	}
	if !info.Mode().IsRegular() {
		return nil, failf(nil, "%s: the registry is not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, yamlx.MaxBytes+1))
	if err != nil {
		return nil, failf(err, "%s: cannot read the registry: %s", file, reason(err))
	}
	if len(data) > yamlx.MaxBytes {
		return nil, failf(nil, "%s: the registry exceeds 1 MiB", file)
	}
	return data, nil
}

type registryDoc struct {
	Brains map[string]*registryEntry `json:"brains"`
}

type registryEntry struct {
	Path *string `json:"path"`
}

// parseRegistry decodes and checks a registry document. Errors are *yamlx.Error values
// (wrapped in *Error) naming the file and the dotted key, never a path value.
func parseRegistry(file string, data []byte) (map[string]string, error) {
	var doc registryDoc
	if err := yamlx.Decode(file, data, &doc, yamlx.Strict); err != nil {
		return nil, failf(err, "%s", err.Error())
	}
	out := make(map[string]string, len(doc.Brains))
	for _, name := range slices.Sorted(maps.Keys(doc.Brains)) {
		entry := doc.Brains[name]
		key := yamlx.Join("brains", name)
		if !ref.ValidName(name) {
			return nil, regErr(file, key, "brain names must match ^[a-z][a-z0-9-]{0,63}$")
		}
		if entry == nil || entry.Path == nil {
			return nil, regErr(file, yamlx.Join(key, "path"), "field required")
		}
		p := *entry.Path
		if why := checkPathText(p); why != "" {
			return nil, regErr(file, yamlx.Join(key, "path"), why)
		}
		if why := checkRegisteredPath(p); why != "" {
			return nil, regErr(file, yamlx.Join(key, "path"), why)
		}
		out[name] = p
	}
	return out, nil
}

// checkRegisteredPath requires an absolute path or one starting with ~ or ~/.
func checkRegisteredPath(p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/") || filepath.IsAbs(p):
		return ""
	case strings.HasPrefix(p, "~"):
		return "registered brain paths must be absolute or start with ~/ (~user is not expanded)"
	}
	return "registered brain paths must be absolute or start with ~"
}

func regErr(file, path, why string) error {
	e := yamlx.Errorf(file, path, "%s", why)
	return failf(e, "%s", e.Error())
}

// leadingComments returns the file's first lines that start with #, with their line
// endings; other comments do not survive a rewrite.
func leadingComments(data []byte) string {
	var b strings.Builder
	for len(data) > 0 && data[0] == '#' {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		b.Write(line)
		data = data[len(line):]
	}
	s := b.String()
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// encode prints the registry: the kept comment lines, then the brains in name order.
func (r *Registry) encode() []byte {
	var b bytes.Buffer
	if r.header != "" {
		b.WriteString(r.header)
	} else {
		b.WriteString(defaultHeader)
	}
	if len(r.Brains) == 0 {
		b.WriteString("brains: {}\n")
		return b.Bytes()
	}
	b.WriteString("brains:\n")
	for _, name := range r.Names() {
		fmt.Fprintf(&b, "  %s:\n    path: %s\n", name, yamlScalar(r.Brains[name]))
	}
	return b.Bytes()
}

// yamlScalar prints s as a YAML string: plain when it is a simple path, else in double
// quotes with escapes, so any valid path reads back unchanged.
func yamlScalar(s string) string {
	plain := s != "~" && (strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~/"))
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._~+@%=,-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == utf8.RuneError || !unicode.IsPrint(c) && c != ' ':
			if c <= 0xFFFF {
				fmt.Fprintf(&b, `\u%04X`, c)
			} else {
				fmt.Fprintf(&b, `\U%08X`, c)
			}
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Registration is one registry entry.
type Registration struct {
	Brain string `json:"brain"`
	Path  string `json:"path"`
}

// Result is what Register did.
type Result struct {
	Brain string `json:"brain"` // the brain's name
	// Collect is true when collection trust was recorded for this machine.
	Collect bool   `json:"collect,omitempty"`
	Config  string `json:"config"` // the registry file
	Path    string `json:"path"`   // the absolute folder now registered
	// Replaced lists entries this registration removed: the same name at a folder that no
	// longer exists, or any name that reaches the same physical folder.
	Replaced []Registration `json:"replaced,omitempty"`
	// Unchanged is true when the brain was already registered at exactly this path and the
	// file was left untouched.
	Unchanged bool `json:"-"`
}

// RegisterOptions are the flags of bf register.
type RegisterOptions struct {
	// Collect also records collection trust for this machine (bf register --collect).
	Collect bool
}

// Register records the brain at path under its name, with the rules of bf register:
//
//   - path (~ expanded, relative to the working directory) must be a brain Open accepts;
//     name, when not empty, must equal the name its bf.yaml declares, since bf://NAME
//     addresses and selection by name rely on the two agreeing;
//   - names are unique per machine: if the name is registered for another folder that
//     still exists and is a different physical folder, registration fails;
//   - an entry under the same name whose folder no longer exists, and any entry that
//     reaches the same physical folder (same device and inode), is replaced and listed in
//     Result.Replaced — so registering a moved or renamed brain at its new place works;
//   - registering the same brain at the same path again changes nothing and succeeds.
//
// The file is rewritten atomically (0600, in a 0700 folder), keeping its leading comment
// lines; other comments are lost. Concurrent registrations are serialised with a lock on
// the registry folder. On success r holds the new content.
func (r *Registry) Register(path, name string, opts RegisterOptions) (Result, error) {
	env := r.env
	if why := checkPathText(path); why != "" {
		return Result{}, invalidf("brain path %s", why)
	}
	root, err := env.abs(path, "")
	if err != nil {
		return Result{}, err
	}
	if why := checkPathText(root); why != "" {
		return Result{}, invalidf("brain path %s", why)
	}
	b, err := env.Open(root)
	if err != nil {
		return Result{}, err
	}
	if name != "" && name != b.Name {
		if !ref.ValidName(name) {
			return Result{}, invalidf("--name: brain names must match ^[a-z][a-z0-9-]{0,63}$")
		}
		return Result{}, invalidf("--name %s does not match the name %s in %s; change bf.yaml to rename the brain", name, b.Name, filepath.Join(b.Root, "bf.yaml"))
	}
	res := Result{Brain: b.Name, Path: b.Root, Config: r.File}

	dir := filepath.Dir(r.File)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Result{}, failf(err, "%s: cannot create the registry folder: %s", dir, reason(err))
	}
	unlock, err := lockDir(dir, registryWait)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	// Another process may have changed the file since it was loaded.
	if err := r.read(); err != nil {
		return Result{}, err
	}

	next := make(map[string]string, len(r.Brains)+1)
	for _, other := range r.Names() {
		p := r.Brains[other]
		abs, err := env.expand(p)
		if err != nil {
			return Result{}, err
		}
		abs = filepath.Clean(abs)
		info, statErr := os.Stat(abs)
		same := statErr == nil && info.IsDir() && identityOf(info) == b.ID
		switch {
		case other == b.Name && abs == b.Root:
			// Already registered at this path, perhaps spelled with ~: kept as written.
		case same:
			res.Replaced = append(res.Replaced, Registration{Brain: other, Path: p})
			continue
		case other == b.Name && absent(statErr):
			res.Replaced = append(res.Replaced, Registration{Brain: other, Path: p})
			continue
		case other == b.Name:
			return Result{}, failf(nil, "another folder is already registered as %s (%s); names are unique on this machine: rename one brain in its bf.yaml, or move that folder away and register again", other, p)
		}
		next[other] = p
	}
	_, kept := next[b.Name]
	if !kept {
		next[b.Name] = b.Root
	}
	if kept && len(res.Replaced) == 0 {
		res.Unchanged = true
	} else {
		old := r.Brains
		r.Brains = next
		if err := durable.WriteFile(r.File, r.encode(), 0o600); err != nil {
			r.Brains = old
			return Result{}, failf(err, "%s: cannot write the registry: %s", r.File, reason(err))
		}
	}
	if opts.Collect {
		if err := env.Trust(b.Root); err != nil {
			return res, err
		}
		res.Collect = true
	}
	return res, nil
}

// lockDir takes an exclusive flock on a folder, retrying until wait has passed.
func lockDir(dir string, wait time.Duration) (func(), error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, failf(err, "%s: cannot lock the registry folder: %s", dir, reason(err))
	}
	deadline := time.Now().Add(wait)
	for {
		err = syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
				d.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || time.Now().After(deadline) {
			d.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, failf(err, "%s: another bf register is still running; try again", dir)
			}
			return nil, failf(err, "%s: cannot lock the registry folder: %s", dir, reason(err))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// reason is the short text of an OS error, without the path the caller already names.
func reason(err error) string { return durable.Cause(err).Error() }
