// Package durable writes files so that a crash at any moment leaves either the old or the
// new content under a name, never a torn file, and makes folder changes survive a power
// loss. Every writer of small state files in bf (registry, trust, run history, actions)
// goes through it.
package durable

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile replaces (or creates) file with data and mode perm: a temporary file in the
// same folder is written and synced, renamed over file, and the folder is synced. On
// failure the temporary file is removed and file is left as it was.
func WriteFile(file string, data []byte, perm fs.FileMode) (err error) {
	dir := filepath.Dir(file)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	// CreateTemp makes 0600 files; Chmod applies perm exactly, whatever the umask.
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), file); err != nil {
		return err
	}
	return SyncDir(dir)
}

// SyncDir makes the creations, renames and removals in dir durable. A file system that
// cannot sync folders (EINVAL) has nothing more to do.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// Cause keeps an OS error's cause without the absolute path it carries, so that messages
// name files relative to the brain, never where the brain lives.
func Cause(err error) error {
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
