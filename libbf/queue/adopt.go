package queue

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/bfgo/bf/libbf/durable"
)

// Adopt keeps a brain's state when its device is numbered anew (btrfs at boot, a cloned
// disk swapped in): the folder runtime/<dev>-<ino> named by the old device number is
// renamed to the current one. runtime is $XDG_STATE_HOME/bf/runtime; dev and ino are the
// brain folder's physical identity now; path is its resolved absolute path.
//
// Call it before creating the brain's state folder. It does nothing when runtime/<dev>-<ino>
// exists. Otherwise it looks at every folder of runtime/ with the same inode and another
// device: one whose queue is bound to path is renamed and its old name returned. A
// folder without a queue is left alone: a brain without a queue keeps no program state.
// Several bound folders, or any that cannot be read, are refused with errAdopt naming them,
// as only the user can tell which one is right.
func Adopt(runtime string, dev, ino uint64, path string) (string, error) {
	want := fmt.Sprintf("%d-%d", dev, ino)
	if _, err := os.Lstat(filepath.Join(runtime, want)); err == nil {
		return "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: cannot read the state folder; check its permissions: %w", filepath.Join(runtime, want), err)
	}
	entries, err := os.ReadDir(runtime)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%s: cannot list the state folders; check its permissions: %w", runtime, err)
	}
	same := regexp.MustCompile(`^[0-9]+-` + strconv.FormatUint(ino, 10) + `$`)
	var bound, unreadable []string
	for _, e := range entries {
		name := e.Name()
		if name == want || !same.MatchString(name) || !e.IsDir() {
			continue
		}
		dir := filepath.Join(runtime, name)
		if _, err := os.Lstat(filepath.Join(dir, FileName)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		q, err := OpenReadOnly(dir, Options{})
		if err != nil {
			unreadable = append(unreadable, name)
			continue
		}
		b := q.Binding()
		q.Close()
		if b.Path == path {
			bound = append(bound, name)
		}
	}
	slices.Sort(bound)
	slices.Sort(unreadable)
	fix := fmt.Sprintf("rename the right folder to runtime/%s and move the others out of runtime/", want)
	switch {
	case len(bound) > 1:
		return "", newError(errAdopt, "several assistant queues in the state folder runtime/ are bound to this brain (%s); %s",
			strings.Join(bound, ", "), fix)
	case len(unreadable) > 0:
		return "", newError(errAdopt, "assistant queue in the state folder runtime/ (%s) may belong to this brain but cannot be read; %s",
			strings.Join(unreadable, ", "), fix)
	case len(bound) == 0:
		return "", nil
	}
	from, to := filepath.Join(runtime, bound[0]), filepath.Join(runtime, want)
	if err := os.Rename(from, to); err != nil {
		_, ferr := os.Lstat(from)
		_, terr := os.Lstat(to)
		switch {
		case errors.Is(ferr, fs.ErrNotExist) && terr == nil:
			// Another process adopted it meanwhile.
			return "", nil
		case terr == nil:
			return "", newError(errAdopt, "state folder runtime/%s appeared while adopting runtime/%s; %s", want, bound[0], fix)
		}
		return "", fmt.Errorf("%s: cannot rename the state folder to %s; rename it by hand: %w", from, want, err)
	}
	if err := durable.SyncDir(runtime); err != nil {
		return "", fmt.Errorf("%s: cannot sync the state folders; check the disk: %w", runtime, err)
	}
	return bound[0], nil
}
