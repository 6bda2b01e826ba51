package vault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/check"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/starter"
)

// write stages the round's result in a hidden folder beside the destination, checks it
// with bf validate's rules and renames it into place. It reports more=true, writing
// nothing, when the check set aside a key or a note and the round must run again.
func (imp *importer) write(ctx context.Context, r *Report, docs []*doc, files []*file) (more bool, err error) {
	base := nearest(filepath.Dir(imp.dest))
	removeAbandonedStages(base, time.Now())
	stage, err := os.MkdirTemp(base, stagePrefix)
	if err != nil {
		return false, fmt.Errorf("cannot create a staging folder in %s: %s", base, reason(err))
	}
	held, err := holdStage(stage)
	if err != nil {
		os.RemoveAll(stage)
		return false, fmt.Errorf("cannot lock the staging folder %s: %s", stage, reason(err))
	}
	defer func() {
		if stage != "" {
			os.RemoveAll(stage)
		}
		held.Close()
	}()
	if imp.t.create {
		if _, err := starter.Write(stage, starter.Options{Name: imp.t.name}); err != nil {
			return false, err
		}
	} else {
		data, err := os.ReadFile(filepath.Join(imp.t.root, config.FileName))
		if err != nil {
			return false, err
		}
		if err := os.WriteFile(filepath.Join(stage, config.FileName), data, 0o644); err != nil {
			return false, err
		}
	}
	byOut := map[string]*doc{}
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		byOut[d.f.out] = d
		if err := put(stage, d.f.out, []byte(d.text), d.f.mtime); err != nil {
			return false, err
		}
	}
	for _, f := range files {
		if f.out == "" || f.note {
			continue
		}
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if err := copyFile(filepath.Join(imp.src, filepath.FromSlash(f.src)), stage, f.out, f.mtime); err != nil {
			return false, err
		}
	}
	b, err := brain.Open(stage)
	if err != nil {
		return false, err
	}
	rep, err := check.Brain(b, nil)
	if err != nil {
		return false, err
	}
	prefix := imp.t.folder + "/"
	for _, p := range rep.Problems {
		if !strings.HasPrefix(p.File, prefix) || strings.Contains(p.Error, "validate.") {
			// Only the imported files count, and the brain's validate: policy (an index
			// note, required statuses, forbidden patterns) is the user's to apply after.
			continue
		}
		d := byOut[p.File]
		if d == nil {
			return false, fmt.Errorf("%s: %s (an attachment the format refuses; remove it from the source or report this)", p.File, p.Error)
		}
		key, _, _ := strings.Cut(p.Error, ":")
		key, _, _ = strings.Cut(key, ".")
		if d.fm.has(key) {
			imp.setKey(d.f.src, key, p.Error)
		} else {
			imp.excluded[d.f.src] = "the converted note breaks a rule of the format: " + p.Error
		}
		more = true
	}
	if more {
		return true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	// Commit: one rename puts the whole import in place.
	from := stage
	if !imp.t.create {
		from = filepath.Join(stage, filepath.FromSlash(imp.t.folder))
	}
	if err := os.MkdirAll(filepath.Dir(imp.dest), 0o755); err != nil {
		return false, err
	}
	if err := os.Remove(imp.dest); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, fmt.Errorf("DEST: %s is no longer empty: %s", imp.dest, reason(err))
	}
	if err := os.Rename(from, imp.dest); err != nil {
		return false, fmt.Errorf("cannot move the import into %s: %s", imp.dest, reason(err))
	}
	if imp.t.create {
		stage = ""
	}
	return false, durable.SyncDir(filepath.Dir(imp.dest))
}

// nearest is dir or its closest existing ancestor.
// stagePrefix names the staging folders of imports.
const stagePrefix = ".bf-import-"

// stageSettle is how old an unlocked staging folder must be before another import
// removes it: a folder just created is locked a moment later by its own import.
const stageSettle = 10 * time.Second

// holdStage locks a staging folder for as long as its import runs. The kernel drops the
// lock when the process dies, so a later import can tell a killed import's folder from a
// running one's.
func holdStage(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: dir, Err: err}
	}
	return f, nil
}

// removeAbandonedStages removes the staging folders in base that a killed import left:
// older than stageSettle and locked by no running import. It is best effort: a folder
// it cannot remove is tried again by the next import.
func removeAbandonedStages(base string, now time.Time) {
	list, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range list {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), stagePrefix) {
			continue // a symbolic link is never followed
		}
		dir := filepath.Join(base, e.Name())
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < stageSettle {
			continue
		}
		held, err := holdStage(dir)
		if err != nil {
			continue // its import still runs
		}
		os.RemoveAll(dir)
		held.Close()
	}
}

func nearest(dir string) string {
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

func put(root, rel string, data []byte, mtime int64) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	t := time.Unix(mtime, 0)
	return os.Chtimes(p, t, t)
}

func copyFile(src, root, rel string, mtime int64) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("%s: %s", src, reason(err))
	}
	defer in.Close()
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	t := time.Unix(mtime, 0)
	return os.Chtimes(p, t, t)
}
