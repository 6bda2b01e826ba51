package vault

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	stage, err := os.MkdirTemp(base, ".bf-import-")
	if err != nil {
		return false, fmt.Errorf("cannot create a staging folder in %s: %s", base, reason(err))
	}
	defer func() {
		if stage != "" {
			os.RemoveAll(stage)
		}
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
