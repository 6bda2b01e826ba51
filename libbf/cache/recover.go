package cache

// Recovery of an interrupted record transaction.
//
// The record store writes a source's changes as one transaction journaled in
// memories/.pending/: it backs up every file it will replace as <N>.before (N is the change's
// 0-based position in the manifest), writes manifest.json with "complete":false, changes the
// files, then marks the manifest complete and clears the folder. A transaction interrupted
// before it was marked complete is rolled back here: backups are restored, files the
// transaction created are deleted, and the journal is removed.
//
// This lives in cache only until the record store package exists; bf build calls it through
// Build. Callers hold the exclusive reader lock, which record writers also take.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"syscall"

	"github.com/bfgo/bf/libbf/ref"
	"github.com/bfgo/bf/libbf/scan"
)

const (
	pendingDir    = "memories/.pending"
	manifestName  = "manifest.json"
	maxManifest   = 1 << 20
	maxBackupSize = 16 << 20 // a record file
)

var (
	errInterrupted = errors.New("records contain an interrupted transaction; run bf build or bf update to recover it before reading")
	errUnexpected  = errors.New("unexpected file in memories/.pending; preserve it and repair the pending transaction")
	errManifest    = errors.New("invalid memories/.pending manifest; preserve it and repair the pending transaction")
	pendingName    = regexp.MustCompile(`^(?:manifest\.json|[0-9]+\.before|\.write-[0-9a-f]{32})$`)
)

// manifest is memories/.pending/manifest.json.
type manifest struct {
	Version  int      `json:"version"`
	Source   string   `json:"source"`
	Complete bool     `json:"complete"`
	Changes  []change `json:"changes"`
}

type change struct {
	Name    string `json:"name"`
	Existed bool   `json:"existed"`
}

// interrupted reports whether root holds a record transaction that was not completed:
// a manifest saying "complete":false, or one that cannot be read as complete.
func interrupted(root string) (bool, error) {
	data, err := readSmall(filepath.Join(root, filepath.FromSlash(pendingDir), manifestName), maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, nil // unreadable: it cannot be shown to be complete
	}
	var m manifest
	if json.Unmarshal(data, &m) != nil {
		return true, nil
	}
	return !m.Complete, nil
}

// recoverPending rolls back an interrupted transaction and removes the journal. It changes
// nothing when the journal holds a file it does not know or a manifest it cannot trust.
func recoverPending(root string) error {
	pdir := filepath.Join(root, filepath.FromSlash(pendingDir))
	st, err := os.Lstat(pdir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read memories/.pending: %v", pathReason(err))
	}
	if !st.IsDir() || st.Mode()&fs.ModeSymlink != 0 {
		return errUnexpected
	}
	names, err := readNames(pdir)
	if err != nil {
		return fmt.Errorf("cannot read memories/.pending: %v", pathReason(err))
	}
	for _, n := range names {
		if !pendingName.MatchString(n) {
			return errUnexpected
		}
	}
	data, err := readSmall(filepath.Join(pdir, manifestName), maxManifest)
	if errors.Is(err, fs.ErrNotExist) {
		// The store writes the manifest before it touches a source: nothing was changed yet.
		return clearPending(pdir, names)
	}
	if err != nil {
		return fmt.Errorf("cannot read memories/.pending/manifest.json: %v", pathReason(err))
	}
	m, err := parseManifest(data)
	if err != nil {
		return err
	}
	if !m.Complete {
		if err := rollBack(root, pdir, m); err != nil {
			return err
		}
		m.Complete = true
		done, _ := json.Marshal(m)
		if err := writeAtomic(pdir, manifestName, done); err != nil {
			return fmt.Errorf("cannot mark memories/.pending recovered: %v", pathReason(err))
		}
	}
	names, err = readNames(pdir)
	if err != nil {
		return fmt.Errorf("cannot read memories/.pending: %v", pathReason(err))
	}
	return clearPending(pdir, names)
}

// parseManifest reads a manifest strictly.
func parseManifest(data []byte) (*manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m manifest
	if err := dec.Decode(&m); err != nil || dec.More() {
		return nil, errManifest
	}
	if m.Version != 1 || !ref.ValidName(m.Source) {
		return nil, errManifest
	}
	seen := map[string]bool{}
	for _, c := range m.Changes {
		if !scan.IsRecordName(c.Name) || seen[c.Name] {
			return nil, errManifest
		}
		seen[c.Name] = true
	}
	return &m, nil
}

// rollBack restores every backup and deletes every created file. All backups are checked
// before the first file changes, so a missing backup leaves the source untouched.
func rollBack(root, pdir string, m *manifest) error {
	backups := make([][]byte, len(m.Changes))
	for i, c := range m.Changes {
		if !c.Existed {
			continue
		}
		b, err := readSmall(filepath.Join(pdir, fmt.Sprintf("%d.before", i)), maxBackupSize)
		if err != nil {
			return fmt.Errorf("cannot read backup %d.before in memories/.pending: %v; preserve the folder and repair the pending transaction", i, pathReason(err))
		}
		backups[i] = b
	}
	src := filepath.Join(root, "memories", m.Source)
	for i, c := range m.Changes {
		if c.Existed {
			if err := os.MkdirAll(src, 0o755); err != nil {
				return fmt.Errorf("cannot restore memories/%s: %v", m.Source, pathReason(err))
			}
			if err := writeAtomic(src, c.Name, backups[i]); err != nil {
				return fmt.Errorf("cannot restore memories/%s/%s: %v", m.Source, c.Name, pathReason(err))
			}
			continue
		}
		if err := os.Remove(filepath.Join(src, c.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot remove memories/%s/%s: %v", m.Source, c.Name, pathReason(err))
		}
	}
	return syncDir(src)
}

// clearPending removes the journal: the manifest last, so an interrupted clean-up still
// shows a completed transaction.
func clearPending(pdir string, names []string) error {
	for _, n := range names {
		if n != manifestName {
			if err := os.Remove(filepath.Join(pdir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("cannot clear memories/.pending: %v", pathReason(err))
			}
		}
	}
	if err := os.Remove(filepath.Join(pdir, manifestName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot clear memories/.pending: %v", pathReason(err))
	}
	if err := os.Remove(pdir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cannot clear memories/.pending: %v", pathReason(err))
	}
	return nil
}

// writeAtomic writes data to dir/name through a synced temporary file and a rename.
func writeAtomic(dir, name string, data []byte) error {
	var r [16]byte
	rand.Read(r[:])
	tmp := filepath.Join(dir, ".write-"+hex.EncodeToString(r[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(dir)
}

// syncDir makes renames and removals in dir durable.
func syncDir(dir string) error {
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

// readSmall reads a regular file (never through a symlink) of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, nil
}

// readNames lists a folder's entry names.
func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
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
