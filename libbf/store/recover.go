package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/bfgo/bf/libbf/durable"
)

// Recover finishes an interrupted transaction under the record lock (waiting DefaultWait):
// an incomplete one is rolled back, a complete one only cleared, and the journal removed.
// It changes nothing and fails when the journal holds a file no transaction writes or a
// manifest it cannot trust, since that journal may be all that is left of some records.
// With no journal it returns at once, taking no lock. Recovering twice is harmless.
func Recover(ctx context.Context, root string) error {
	if _, err := os.Lstat(filepath.Join(root, memoriesDir, pendingDir)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	l, err := lockRecords(ctx, root, true, DefaultWait)
	if err != nil {
		return err
	}
	defer l.Release()
	return recoverLocked(root)
}

// Interrupted reports whether the brain at root holds a transaction that has not been
// completed, so its records may be half written: a manifest that says "complete":false or
// that cannot be read as complete. Readers refuse with ErrInterrupted then. A journal
// without a manifest, or with a complete one, changed nothing that can be seen.
func Interrupted(root string) (bool, error) {
	data, err := durable.ReadRegular(filepath.Join(root, memoriesDir, pendingDir, manifestName), maxManifestSize)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, nil // it cannot be shown to be complete
	}
	m, err := parseManifest(data)
	if err != nil {
		return true, nil
	}
	return !m.Complete, nil
}

// recoverLocked is Recover for a caller that holds the lock.
func recoverLocked(root string) error {
	if err := checkFolder(root, memoriesDir); err != nil {
		return err
	}
	mem := filepath.Join(root, memoriesDir)
	pdir := filepath.Join(mem, pendingDir)
	found, m, err := inspect(pdir)
	if err != nil || !found {
		return err
	}
	if m == nil {
		// A commit writes its manifest before it touches a source: nothing changed yet.
		return clearAll(mem, pdir)
	}
	srcRel := memoriesDir + "/" + m.Source
	if err := checkFolder(root, srcRel); err != nil {
		return fmt.Errorf("%w; memories/.pending was preserved", err)
	}
	src := filepath.Join(mem, m.Source)
	if !m.Complete {
		if err := rollBack(mem, src, pdir, m); err != nil {
			return err
		}
		m.Complete = true
		if err := writeAtomic(pdir, manifestName, m.encode(), 0o644, nil); err != nil {
			return fmt.Errorf("cannot mark memories/.pending/manifest.json recovered: %w", durable.Cause(err))
		}
		if err := durable.SyncDir(pdir); err != nil {
			return fmt.Errorf("cannot sync memories/.pending: %w", durable.Cause(err))
		}
		if err := step("recovered"); err != nil {
			return err
		}
	}
	if err := sweepTemp(src); err != nil {
		return fmt.Errorf("cannot remove temporary files in %s: %w", srcRel, durable.Cause(err))
	}
	return clearAll(mem, pdir)
}

// rollBack puts back what m changed in src: backups are restored (unless the file already
// holds them) and files the transaction created are deleted. Every backup is checked
// before the first file changes, so a journal missing one leaves the source untouched.
func rollBack(mem, src, pdir string, m *manifest) error {
	for i, c := range m.Changes {
		if !c.Existed {
			continue
		}
		st, err := os.Lstat(filepath.Join(pdir, backupName(i)))
		if err == nil && !st.Mode().IsRegular() {
			err = errors.New("not a regular file")
		}
		if err != nil {
			return fmt.Errorf("cannot read backup %s in memories/.pending: %w; %s", backupName(i), durable.Cause(err), repairAdvice)
		}
	}
	srcRel := memoriesDir + "/" + m.Source
	if slices.ContainsFunc(m.Changes, func(c entry) bool { return c.Existed }) {
		if err := makeDir(mem, src); err != nil { // someone removed the whole folder
			return fmt.Errorf("cannot restore %s: %w", srcRel, durable.Cause(err))
		}
	}
	for i, c := range m.Changes {
		target := filepath.Join(src, c.Name)
		if !c.Existed {
			if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("cannot remove %s/%s while rolling back: %w", srcRel, c.Name, durable.Cause(err))
			}
			if err := step("undo %d", i); err != nil {
				return err
			}
			continue
		}
		saved := filepath.Join(pdir, backupName(i))
		if sameFile(saved, target) {
			continue
		}
		if err := restore(saved, src, c.Name); err != nil {
			return fmt.Errorf("cannot restore %s/%s from memories/.pending/%s: %w", srcRel, c.Name, backupName(i), durable.Cause(err))
		}
		if err := step("restore %d", i); err != nil {
			return err
		}
	}
	if err := durable.SyncDir(src); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot sync %s: %w", srcRel, durable.Cause(err))
	}
	return step("rolled back")
}

// restore copies the backup saved over src/name, atomically, keeping the backup's mode.
func restore(saved, src, name string) error {
	in, perm, err := openFile(saved)
	if err != nil {
		return err
	}
	defer in.Close()
	return replaceWith(src, name, perm, nil, func(f *os.File) error {
		_, err := io.Copy(f, in)
		return err
	})
}

// clearAll removes the journal: backups and temporary files, then the manifest (last, so
// an interrupted clean-up still shows how the transaction ended), then the folder.
func clearAll(mem, pdir string) error {
	names, err := readNames(pdir)
	if err != nil {
		return fmt.Errorf("cannot read memories/.pending: %w", durable.Cause(err))
	}
	slices.Sort(names)
	for _, n := range names {
		if n == manifestName {
			continue
		}
		if err := os.Remove(filepath.Join(pdir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot clear memories/.pending/%s: %w", n, durable.Cause(err))
		}
		if err := step("clear %s", n); err != nil {
			return err
		}
	}
	if err := os.Remove(filepath.Join(pdir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot clear memories/.pending/manifest.json: %w", durable.Cause(err))
	}
	if err := os.Remove(pdir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot clear memories/.pending: %w", durable.Cause(err))
	}
	if err := durable.SyncDir(mem); err != nil {
		return fmt.Errorf("cannot sync %s: %w", memoriesDir, durable.Cause(err))
	}
	return nil
}

// repairAdvice is the one fix bf gives, wherever it looks, for a memories/.pending that no
// recovery can trust: bf never deletes it itself, since it may hold the only copy of records.
const repairAdvice = "bf cannot recover it: move memories/.pending out of memories/ (keep it if you need its files), then run bf build"

// Check reports a memories/.pending that recovery cannot trust (not a folder, a file no
// transaction writes, a manifest that cannot be read or trusted), with repairAdvice; nil
// when there is none or recovery can finish it. It reads only, taking no lock.
func Check(root string) error {
	_, _, err := inspect(filepath.Join(root, memoriesDir, pendingDir))
	return err
}

// inspect reads the journal at pdir without changing it: whether it exists, and its
// manifest (nil when it has none). An error means recovery must not touch it.
func inspect(pdir string) (bool, *manifest, error) {
	st, err := os.Lstat(pdir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil, nil
	}
	if err != nil {
		return true, nil, fmt.Errorf("cannot read memories/.pending: %w", durable.Cause(err))
	}
	if !st.IsDir() || st.Mode()&fs.ModeSymlink != 0 {
		return true, nil, fmt.Errorf("%w (memories/.pending is not a folder); %s", errUnexpected, repairAdvice)
	}
	names, err := readNames(pdir)
	if err != nil {
		return true, nil, fmt.Errorf("cannot read memories/.pending: %w", durable.Cause(err))
	}
	for _, n := range names {
		if !pendingName().MatchString(n) {
			return true, nil, fmt.Errorf("%w (%q); %s", errUnexpected, n, repairAdvice)
		}
	}
	data, err := durable.ReadRegular(filepath.Join(pdir, manifestName), maxManifestSize)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil, nil
	}
	if err != nil {
		return true, nil, fmt.Errorf("cannot read memories/.pending/manifest.json: %w; %s", durable.Cause(err), repairAdvice)
	}
	m, err := parseManifest(data)
	if err != nil {
		return true, nil, err
	}
	return true, m, nil
}
