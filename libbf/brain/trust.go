package brain

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bfgo/bf/libbf/durable"
)

// Collection trust lets a brain's programs (sensors, routines, assistants, channels) and its
// embeddings and ask providers run on this machine. bf register --collect grants it;
// nothing grants it implicitly.
//
// It is recorded outside the brain and outside the registry, in the brain's state folder:
//
//	$XDG_STATE_HOME/bf/runtime/<dev>-<ino>/trust.json   (default ~/.local/state/bf/…)
//	{"collect":true,"path":"/real/path/of/the/brain"}
//
// <dev>-<ino> is the physical identity of the brain folder and path is its absolute path
// with symlinks resolved. Both must match for Trusted to answer true: a copy of the brain
// (a new inode), a brain moved or renamed (a new path) or another brain later created at
// the same place (a new inode) is not trusted until registered again with --collect.
// Every folder on the way is created 0700 and must be owned by the current account;
// the file is written atomically with mode 0600.
const trustFile = "trust.json"

type trustRecord struct {
	Collect bool   `json:"collect"`
	Path    string `json:"path"`
}

// StateDir returns $XDG_STATE_HOME/bf (default ~/.local/state/bf), creating it with mode
// 0700. It fails if the folder exists but another account owns it.
func (e Env) StateDir() (string, error) {
	dir, err := e.stateRoot()
	if err != nil {
		return "", err
	}
	return dir, e.ensureDir(dir)
}

// BrainStateDir returns the state folder of the brain with identity id,
// StateDir()/runtime/<dev>-<ino>, creating it with mode 0700.
func (e Env) BrainStateDir(id Identity) (string, error) {
	dir, err := e.StateDir()
	if err != nil {
		return "", err
	}
	for _, d := range []string{filepath.Join(dir, "runtime"), filepath.Join(dir, "runtime", id.String())} {
		if err := e.ensureDir(d); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "runtime", id.String()), nil
}

// BrainStatePath names the state folder of the brain with identity id without creating
// anything, for readers that treat a missing folder as no state.
func (e Env) BrainStatePath(id Identity) (string, error) {
	dir, err := e.stateRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "runtime", id.String()), nil
}

func (e Env) stateRoot() (string, error) {
	base, err := e.xdg("XDG_STATE_HOME", filepath.Join(".local", "state"))
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "bf"), nil
}

// ensureDir creates dir (and missing parents) with mode 0700 and checks that it is a
// folder owned by the current account.
func (e Env) ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return failf(err, "%s: cannot create the state folder: %s", dir, reason(err))
	}
	return e.checkOwnedDir(dir)
}

func (e Env) checkOwnedDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return failf(err, "%s: cannot read the state folder: %s", dir, reason(err))
	}
	if !info.IsDir() {
		return failf(nil, "%s: the state folder is not a folder", dir)
	}
	if ownerOf(info) != e.euid() {
		return failf(nil, "%s: the state folder is owned by another account; bf keeps state only in folders you own", dir)
	}
	return nil
}

// Trust records collection trust for the brain at root (see the trust.json layout above).
func (e Env) Trust(root string) error {
	b, err := e.Open(root)
	if err != nil {
		return err
	}
	resolved, err := filepath.EvalSymlinks(b.Root)
	if err != nil {
		return failf(err, "%s: cannot resolve the brain folder: %s", b.Root, reason(err))
	}
	dir, err := e.BrainStateDir(b.ID)
	if err != nil {
		return err
	}
	data, err := json.Marshal(trustRecord{Collect: true, Path: resolved})
	if err != nil {
		return failf(err, "cannot encode collection trust")
	}
	file := filepath.Join(dir, trustFile)
	if err := durable.WriteFile(file, append(data, '\n'), 0o600); err != nil {
		return failf(err, "%s: cannot record collection trust: %s", file, reason(err))
	}
	return nil
}

// RequireTrust returns refused when the brain at root is not trusted to run its programs
// here, and nil when it is. Each kind of program (collectors and channels, ask models,
// embeddings providers) refuses with its own error, naming what would have run.
func (e Env) RequireTrust(root string, refused error) error {
	ok, err := e.Trusted(root)
	if err != nil {
		return err
	}
	if !ok {
		return refused
	}
	return nil
}

// Trusted reports whether the brain folder at root holds collection trust: its state
// folder has a trust.json naming this folder's resolved path. It creates nothing. An error
// means the folder cannot be examined or the state folder is not the user's.
func (e Env) Trusted(root string) (bool, error) {
	abs, err := e.abs(root, "")
	if err != nil {
		return false, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return false, failf(err, "%s: cannot read the brain folder: %s", abs, reason(err))
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false, failf(err, "%s: cannot resolve the brain folder: %s", abs, reason(err))
	}
	state, err := e.stateRoot()
	if err != nil {
		return false, err
	}
	id := identityOf(info)
	dir := filepath.Join(state, "runtime", id.String())
	for _, d := range []string{state, filepath.Join(state, "runtime"), dir} {
		if _, err := os.Stat(d); absent(err) {
			return false, nil
		}
		if err := e.checkOwnedDir(d); err != nil {
			return false, err
		}
	}
	file := filepath.Join(dir, trustFile)
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if absent(err) {
		return false, nil
	}
	if err != nil {
		return false, failf(err, "%s: cannot read collection trust: %s", file, reason(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || ownerOf(fi) != e.euid() {
		return false, failf(err, "%s: collection trust is not a regular file owned by you", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return false, failf(err, "%s: cannot read collection trust: %s", file, reason(err))
	}
	var rec trustRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return false, failf(err, "%s: collection trust is unreadable; trust the brain again with bf register --collect", file)
	}
	return rec.Collect && rec.Path == resolved, nil
}
