// Package brain finds and selects brains: the machine registry
// ($XDG_CONFIG_HOME/bf/config.yaml), collection trust (under $XDG_STATE_HOME/bf/),
// opening a brain folder, and choosing the brains a command works on from --brain,
// BF_BRAIN, the enclosing brain, the registry and brains: references.
//
// Every error it returns on purpose is an *Error whose Kind tells the CLI layer how to
// exit: Invalid (exit 2, also errors.Is(err, errInvalid)) or Failure (exit 1). KindOf maps
// any error.
//
// Everything that reads the machine goes through an Env, so tests use temporary homes;
// the package-level functions use System().
package brain

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/config"
)

// Brain is an opened brain folder.
type Brain struct {
	// Name is the name its bf.yaml declares.
	Name string
	// Root is the absolute folder as selected (cleaned; symlinks in it are kept).
	Root string
	// Config is its parsed bf.yaml.
	Config *config.Config
	// ID is the physical identity of Root.
	ID Identity
	// ConfigErr is why bf.yaml does not load, with Name empty and Config nil. Only a
	// selection that asks for such brains (Request.Unloaded) returns one.
	ConfigErr error
}

// Open opens the brain at root (~ expanded, relative to the working directory).
func Open(root string) (*Brain, error) { return System().Open(root) }

// Open opens the brain at root: a folder holding a bf.yaml that is a regular file owned by
// the current account, with a valid configuration. A missing folder is a Failure whose
// cause satisfies errors.Is(err, fs.ErrNotExist).
func (e Env) Open(root string) (*Brain, error) { return e.open(root, false) }

// open is Open; unloaded keeps a brain whose bf.yaml does not load, with ConfigErr set.
func (e Env) open(root string, unloaded bool) (*Brain, error) {
	if why := checkPathText(root); why != "" {
		return nil, invalidf("brain path %s", why)
	}
	abs, err := e.abs(root, "")
	if err != nil {
		return nil, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		if absent(err) {
			return nil, failf(err, "%s: brain folder does not exist", abs)
		}
		return nil, failf(err, "%s: cannot open the brain folder: %s", abs, reason(err))
	}
	if !info.IsDir() {
		return nil, failf(nil, "%s: not a folder", abs)
	}
	yml, err := os.Lstat(filepath.Join(abs, config.FileName))
	if err != nil {
		if absent(err) {
			return nil, failf(err, "%s: no bf.yaml here; this is not a brain folder", abs)
		}
		return nil, failf(err, "%s: cannot read bf.yaml: %s", abs, reason(err))
	}
	if !yml.Mode().IsRegular() || ownerOf(yml) != e.euid() {
		return nil, failf(nil, "%s: bf.yaml is not a regular file owned by you", abs)
	}
	cfg, err := config.Load(abs)
	if err != nil {
		err = failf(err, "%s: %s", abs, err.Error())
		if unloaded {
			return &Brain{Root: abs, ID: identityOf(info), ConfigErr: err}, nil
		}
		return nil, err
	}
	return &Brain{Name: cfg.Name, Root: abs, Config: cfg, ID: identityOf(info)}, nil
}

// enclosing finds the nearest folder at or above the working directory that holds a
// bf.yaml. It returns "" when there is none. When the first bf.yaml found is not a regular
// file owned by the current account in a folder the account owns, it returns that folder
// and ok=false: such a brain never counts as enclosing.
func (e Env) enclosing() (dir string, ok bool, err error) {
	wd, err := e.getwd()
	if err != nil {
		return "", false, err
	}
	return e.enclosingFrom(wd)
}

// Enclosing opens the brain at or above the absolute folder dir, as the enclosing brain of
// a command run there; ok is false when no folder above dir holds a bf.yaml, or the first
// one found is not the current account's.
func (e Env) Enclosing(dir string) (b *Brain, ok bool, err error) {
	root, owned, err := e.enclosingFrom(dir)
	if err != nil || root == "" || !owned {
		return nil, false, err
	}
	b, err = e.Open(root)
	return b, err == nil, err
}

func (e Env) enclosingFrom(wd string) (dir string, ok bool, err error) {
	for dir := wd; ; {
		yml, err := os.Lstat(filepath.Join(dir, config.FileName))
		switch {
		case err == nil:
			d, err := os.Stat(dir)
			if err != nil {
				return dir, false, nil
			}
			owned := yml.Mode().IsRegular() && ownerOf(yml) == e.euid() && ownerOf(d) == e.euid()
			return dir, owned, nil
		case !absent(err) && !errors.Is(err, fs.ErrPermission):
			return "", false, failf(err, "%s: cannot look for bf.yaml: %s", dir, reason(err))
		}
		// Absent, or in a folder this account cannot search: keep climbing.
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, nil
		}
		dir = parent
	}
}
