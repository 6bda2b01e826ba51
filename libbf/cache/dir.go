package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/bfgo/bf/libbf/bfdir"
)

// geteuid is the account that must own .bf/; tests replace it.
var geteuid = os.Geteuid

// msgSymlink refuses a .bf that is a symbolic link.
const msgSymlink = bfdir.MsgSymlink

// prepareDir makes sure root/.bf is a real folder owned by the user with mode 0700,
// creating it when missing, and returns its path. Nothing follows the fix: the next read
// rebuilds the cache by itself.
func prepareDir(root string) (string, error) {
	return bfdir.Prepare(root, geteuid(), "", dirError)
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
