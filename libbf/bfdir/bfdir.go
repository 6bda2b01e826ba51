// Package bfdir holds the rules for a brain's .bf folder, which the search cache and the
// record lock share: a real folder (never a symbolic link), owned by the user, mode 0700.
package bfdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Name is the folder, relative to the brain root.
const Name = ".bf"

// Why .bf cannot be used as it is. Each says the fix: bf recreates the folder itself.
const (
	msgOtherUser = ".bf belongs to another user; remove it so bf can rebuild its own cache"
	MsgSymlink   = ".bf is a symbolic link; remove it so bf can rebuild its own cache"
	msgNotDir    = ".bf is not a folder; remove it so bf can rebuild its own cache"
)

// Prepare makes sure root/.bf is a real folder owned by the account owner with mode 0700,
// creating it when missing, and returns its path. The callers word failures for what they
// were doing: a refusal of the folder as it is reads one of the Msg constants followed by
// then (what to do after removing it), and explain turns a file system error into the
// caller's message.
func Prepare(root string, owner int, then string, explain func(error) error) (string, error) {
	dir := filepath.Join(root, Name)
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", explain(err)
		}
		st, err = os.Lstat(dir)
	}
	if err != nil {
		return "", explain(err)
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return "", errors.New(MsgSymlink + then)
	case !st.IsDir():
		return "", errors.New(msgNotDir + then)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != owner {
		return "", errors.New(msgOtherUser + then)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", explain(err)
		}
	}
	return dir, nil
}
