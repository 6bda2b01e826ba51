package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// geteuid is the account that must own .bf/; tests replace it.
var geteuid = os.Geteuid

// Messages about .bf itself.
const (
	msgOtherUser = ".bf belongs to another user; remove it so bf can rebuild its own cache"
	msgSymlink   = ".bf is a symbolic link; remove it so bf can rebuild its own cache"
	msgNotDir    = ".bf is not a folder; remove it so bf can rebuild its own cache"
)

// prepareDir makes sure root/.bf is a real folder owned by the user with mode 0700,
// creating it when missing, and returns its path.
func prepareDir(root string) (string, error) {
	dir := filepath.Join(root, Dir)
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", dirError(err)
		}
		st, err = os.Lstat(dir)
	}
	if err != nil {
		return "", dirError(err)
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return "", errors.New(msgSymlink)
	case !st.IsDir():
		return "", errors.New(msgNotDir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != geteuid() {
		return "", errors.New(msgOtherUser)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", dirError(err)
		}
	}
	return dir, nil
}

// dirError explains a failure to use .bf, naming it, without the absolute path.
func dirError(err error) error {
	switch {
	case errors.Is(err, syscall.EROFS):
		return errors.New("cannot write the search cache in .bf: the brain is on a read-only file system; grant write access or search a copy")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("cannot write the search cache in .bf: permission denied; grant write access to the brain or search a copy")
	case errors.Is(err, syscall.ELOOP):
		return errors.New(msgSymlink)
	case errors.Is(err, syscall.ENOSPC):
		return errors.New("cannot write the search cache in .bf: no space left on the device")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("cannot use the search cache in .bf: %v", pe.Err)
	}
	return fmt.Errorf("cannot use the search cache in .bf: %v", err)
}

// pathReason keeps an OS error's cause without the absolute path it carries.
func pathReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
