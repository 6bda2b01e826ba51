package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/bfgo/bf/libbf/durable"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/lock"
)

// Kind names one history file.
type Kind string

// History files and the lock of their writers, in a brain's state folder.
const (
	Sensors  Kind = "sensors.json"
	Routines Kind = "routines.json"
	lockFile      = "state.lock"
)

// Limits.
const (
	// maxFileBytes bounds a history file; a larger one reads as no history.
	maxFileBytes = 8 << 20
	// lockWait is how long a writer waits for another writer of the same folder.
	lockWait = 120 * time.Second
)

// History is a brain's run history on this machine. The zero value (or nil) is no history.
type History struct {
	Sensors  map[string]Entry
	Routines map[string]Entry
}

// Sensor returns a sensor's entry, the zero Entry when it never ran here.
func (h *History) Sensor(name string) Entry {
	if h == nil {
		return Entry{}
	}
	return h.Sensors[name]
}

// Routine returns a routine's entry, the zero Entry when it never ran here.
func (h *History) Routine(name string) Entry {
	if h == nil {
		return Entry{}
	}
	return h.Routines[name]
}

// Load reads the history of brain b on this machine. It never creates anything, so reads
// of a brain leave the state folder as they found it. It always returns a usable History:
// the error, when not nil, says why part of it could not be read (a state folder or file
// owned by another account, or unreadable), and that part reads as no history.
func Load(env brain.Env, b *brain.Brain) (*History, error) {
	h := &History{Sensors: map[string]Entry{}, Routines: map[string]Entry{}}
	dir, err := env.BrainStatePath(b.ID)
	if err != nil {
		return h, err
	}
	var errs []error
	for _, k := range []Kind{Sensors, Routines} {
		entries, err := readFile(env, dir, k)
		if err != nil {
			errs = append(errs, err)
		}
		m := h.Sensors
		if k == Routines {
			m = h.Routines
		}
		for name, raw := range entries {
			var e Entry
			if json.Unmarshal(raw, &e) == nil {
				m[name] = e
			}
		}
	}
	return h, errors.Join(errs...)
}

// readFile reads one history file as raw entries by program name. A missing file is no
// history; a file that is not a regular file owned by the user, too large or not a JSON
// object is ignored, and only the first two are errors worth reporting.
func readFile(env brain.Env, dir string, k Kind) (map[string]json.RawMessage, error) {
	file := filepath.Join(dir, string(k))
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read run history; check the state folder's permissions: %w", file, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read run history: %w", file, err)
	}
	if !st.Mode().IsRegular() || owner(st) != euid(env) {
		return nil, fmt.Errorf("%s: run history is not a regular file owned by you; remove it", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read run history: %w", file, err)
	}
	var entries map[string]json.RawMessage
	if len(data) > maxFileBytes || json.Unmarshal(data, &entries) != nil {
		return nil, nil
	}
	return entries, nil
}

// Record changes the entry of program name in history file k of the state folder dir (as
// brain.Env.BrainStateDir returns it) and returns the entry written. change receives the
// current entry (the zero Entry when there is none). Other programs' entries are kept as
// they are, even those this release cannot read.
//
// Writers exclude each other with an exclusive flock on state.lock, waiting up to lockWait;
// the file is replaced atomically (a synced 0600 temporary file renamed over it, then the
// folder synced), so a crash leaves the old or the new history, never a mix.
func Record(ctx context.Context, dir string, k Kind, name string, change func(Entry) Entry) (Entry, error) {
	l, err := lock.Acquire(ctx, dir, lockFile, true, lockWait)
	if err != nil {
		if errors.Is(err, lock.ErrBusy) {
			return Entry{}, fmt.Errorf("%s: another bf process kept run history locked; retry when it finishes: %w",
				filepath.Join(dir, lockFile), err)
		}
		return Entry{}, fmt.Errorf("%s: cannot lock run history: %w", filepath.Join(dir, lockFile), err)
	}
	defer l.Release()
	entries, err := readFile(brain.Env{}, dir, k)
	if err != nil {
		return Entry{}, err
	}
	if entries == nil {
		entries = map[string]json.RawMessage{}
	}
	var cur Entry
	if raw, ok := entries[name]; ok && json.Unmarshal(raw, &cur) != nil {
		cur = Entry{}
	}
	next := change(cur)
	raw, err := json.Marshal(next)
	if err != nil {
		return Entry{}, fmt.Errorf("cannot encode the run history of %s: %w", name, err)
	}
	entries[name] = raw
	data, err := json.Marshal(entries)
	if err != nil {
		return Entry{}, fmt.Errorf("cannot encode run history: %w", err)
	}
	file := filepath.Join(dir, string(k))
	if err := durable.WriteFile(file, append(data, '\n'), 0o600); err != nil {
		return Entry{}, fmt.Errorf("%s: cannot save run history; check free space and the state folder's permissions: %w", file, err)
	}
	return next, nil
}

func owner(info fs.FileInfo) int {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return -1
	}
	return int(st.Uid)
}

func euid(env brain.Env) int {
	if env.Geteuid == nil {
		return os.Geteuid()
	}
	return env.Geteuid()
}
