// Package config is the model of a brain's bf.yaml, format `version: 8`: its name, related
// brains, declared fields and relations, sensors, routines, watch settings, assistants,
// channels and the validate policy.
//
// Parse and Load check everything that can be checked without looking at the brain's other
// files: the version first, then the strict shape (unknown keys, wrong types), ranges and
// the rules that tie keys together. After a successful parse every setting holds its
// effective value, defaults included, so callers never repeat a default.
//
// Errors are *yamlx.Error values naming the file and the dotted key path (`bf.yaml:
// sensors.git.timeout: expected an integer from 1 to 3600`); they never quote a value,
// because bf.yaml may hold secrets in command arguments. A wrong or missing version is a
// *VersionError, whose text already names the file.
package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/yamlx"
)

// Version is the brain format this release reads and writes.
const Version = 8

// FileName is the configuration file at the root of every brain.
const FileName = "bf.yaml"

// maxFileBytes bounds bf.yaml.
const maxFileBytes = yamlx.MaxBytes

// Built-in relations: a brain can never declare them in fields.
const (
	RelCites      = "cites"       // OKF sources and ?rel=cites links
	RelTaggedWith = "tagged-with" // tag membership
	RelLinks      = "links"       // the backlink group of untyped links
)

// RelSupersedes is the declared relation by which a note replaces another: the successor
// states it, pointing at the note it supersedes. Fused search follows it, and the cache
// keeps an index of its edges.
const RelSupersedes = "supersedes"

// Config is one brain's bf.yaml. Maps are keyed by name.
type Config struct {
	// Version is the brain format; always Version after a successful parse.
	Version int `json:"version"`
	// Name is the brain's namespace in bf://NAME/… addresses.
	Name string `json:"name"`
	// Brains are the related brains searched with this one, by their names.
	Brains map[string]*Brain `json:"brains,omitempty"`
	// Fields declares shared fields and relations for notes and records.
	Fields map[string]*Field `json:"fields,omitempty"`
	// Sensors are the programs that collect records, one source each.
	Sensors map[string]*Sensor `json:"sensors,omitempty"`
	// Routines are deterministic programs run on a schedule, a hook or by hand.
	Routines map[string]*Routine `json:"routines,omitempty"`
	// Watch holds the settings of bf watch.
	Watch Watch `json:"watch,omitempty"`
	// Assistants run a model through a declared harness.
	Assistants map[string]*Assistant `json:"assistants,omitempty"`
	// Channels connect the brain to messaging surfaces.
	Channels map[string]*Channel `json:"channels,omitempty"`
	// Validate is the optional policy bf validate applies on top of its checks.
	Validate *Validate `json:"validate,omitempty"`
	// Memory holds the settings of agent memory: the declared scopes.
	Memory *Memory `json:"memory,omitempty"`
	// Embeddings is the provider of fused search's dense vectors, when declared.
	Embeddings *Embeddings `json:"embeddings,omitempty"`
	// Ask is the model bf ask answers with, when declared.
	Ask *Ask `json:"ask,omitempty"`

	// order keeps the declaration order of the keys of each mapping, by dotted path, so
	// Marshal writes a file back in its own order.
	order map[string][]string
}

// Brain is a related brain.
type Brain struct {
	// Path is the brain's folder; a relative path starts at the declaring brain's root.
	Path string `json:"path"`
}

// Watch holds the settings of bf watch. The zero Watch is not valid; Parse and Starter
// fill the defaults (defaultWatch).
type Watch struct {
	// Interval is the pause in seconds after each collection cycle (5–86400).
	Interval int `json:"interval,omitempty"`
	// PollInterval is how often, in seconds, the dashboard reads run history (0.2–60).
	PollInterval float64 `json:"poll_interval,omitempty"`
	// Notifications is off, failure, success or all.
	Notifications string `json:"notifications,omitempty"`
	// NotificationCooldown is the minimum spacing of desktop notifications in seconds (0–86400).
	NotificationCooldown int `json:"notification_cooldown,omitempty"`
}

// defaultWatch is the watch section a brain gets when it declares none: each setting's
// default as Settings describe it.
func defaultWatch() Watch {
	return Watch{
		Interval:             int(described("watch.interval").Default.(int64)),
		PollInterval:         described("watch.poll_interval").Default.(float64),
		Notifications:        described("watch.notifications").Default.(string),
		NotificationCooldown: int(described("watch.notification_cooldown").Default.(int64)),
	}
}

// Validate is the policy of bf validate.
type Validate struct {
	// IndexNote names the brain-relative note that must exist and list the others.
	IndexNote string `json:"index_note,omitempty"`
	// RequiredStatus lists the statuses OKF notes may have; empty allows all.
	RequiredStatus []string `json:"required_status,omitempty"`
	// ForbidPatterns are regular expressions (Go RE2 syntax) that no note may match.
	ForbidPatterns []string `json:"forbid_patterns,omitempty"`
}

// VersionError reports a bf.yaml whose version this release does not read.
type VersionError struct {
	File string
	// Found is the declared version, or -1 when the key is missing and -2 when it holds
	// something other than an integer from 0 to 999.
	Found int
}

func (e *VersionError) Error() string {
	switch e.Found {
	case -1:
		return fmt.Sprintf("%s has no version; this release reads version: %d", e.File, Version)
	case -2:
		return fmt.Sprintf("%s declares an invalid version; this release reads version: %d", e.File, Version)
	}
	return fmt.Sprintf("%s declares version %d; this release reads version: %d", e.File, e.Found, Version)
}

// Load reads <root>/bf.yaml. The file must be a regular file (a symlink is refused, so the
// configuration cannot come from outside the brain) of at most 1 MiB. A missing file is an
// error satisfying errors.Is(err, fs.ErrNotExist).
func Load(root string) (*Config, error) {
	p := filepath.Join(root, FileName)
	info, err := os.Lstat(p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: FileName, Err: unwrapPath(err)}
	}
	if !info.Mode().IsRegular() {
		return nil, yamlx.Errorf(FileName, "", "expected a regular file, not a symlink or special file")
	}
	if info.Size() > maxFileBytes {
		return nil, yamlx.Errorf(FileName, "", "file exceeds 1 MiB")
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: FileName, Err: unwrapPath(err)}
	}
	defer f.Close()
	// The file may have been swapped since Lstat: check that the open one is the same.
	if st, err := f.Stat(); err != nil || !os.SameFile(info, st) {
		return nil, yamlx.Errorf(FileName, "", "file changed while it was read; retry")
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: FileName, Err: unwrapPath(err)}
	}
	return Parse(FileName, data)
}

// unwrapPath keeps the cause of an *fs.PathError, so the error names bf.yaml relative to the
// brain instead of an absolute path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Parse reads bf.yaml from data; file names it in errors (normally "bf.yaml").
func Parse(file string, data []byte) (*Config, error) {
	tree, err := yamlx.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if err := checkVersion(file, tree); err != nil {
		return nil, err
	}
	top := tree.(map[string]any)
	if err := checkRemoved(file, top); err != nil {
		return nil, err
	}
	var c Config
	if err := yamlx.Assign(file, top, &c, yamlx.Strict); err != nil {
		return nil, err
	}
	d := decoder{file: file, c: &c}
	if err := d.finish(top); err != nil {
		return nil, err
	}
	c.order = keyOrder(data)
	return &c, nil
}

// checkVersion runs before anything else, so a brain of another format gets one clear
// sentence instead of a list of unknown keys.
func checkVersion(file string, tree any) error {
	if tree == nil {
		return &VersionError{File: file, Found: -1}
	}
	top, ok := tree.(map[string]any)
	if !ok {
		return yamlx.Errorf(file, "", "expected a mapping of settings")
	}
	v := top["version"]
	if v == nil {
		return &VersionError{File: file, Found: -1}
	}
	n, ok := v.(int64)
	if !ok || n < 0 || n > 999 {
		return &VersionError{File: file, Found: -2}
	}
	if n != Version {
		return &VersionError{File: file, Found: int(n)}
	}
	return nil
}

// Memory holds the settings of agent memory (bf remember, bf recall, bf scope).
type Memory struct {
	// Scopes are the declared memory scopes, colon paths such as channel:deploy; bf review
	// reports stored scopes nobody declared.
	Scopes []string `json:"scopes,omitempty"`
}

// maxScopes bounds memory.scopes.
const maxScopes = 256
