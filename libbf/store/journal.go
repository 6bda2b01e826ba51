package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"

	"github.com/bfgo/bf/libbf/durable"

	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
)

// manifest is memories/.pending/manifest.json. Fields are in key order, so the encoding is
// compact JSON with sorted keys.
type manifest struct {
	Changes  []entry `json:"changes"`
	Complete bool    `json:"complete"`
	Source   string  `json:"source"`
	Version  int     `json:"version"`
}

// entry is one change: the file's base name, and whether it existed before (and so has a
// backup <N>.before).
type entry struct {
	Existed bool   `json:"existed"`
	Name    string `json:"name"`
}

var (
	// pendingName matches what a transaction may leave in memories/.pending.
	pendingName = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:manifest\.json|[0-9]+\.before|\.write-[0-9a-f]{32})$`)
	})
	// tempName matches a temporary file of an unfinished atomic write.
	tempName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\.write-[0-9a-f]{32}$`) })
)

// crashPoint, when set, is called at every step boundary of a commit and a recovery;
// tests stop the process there, or fail the step with the error it returns.
var crashPoint func(step string) error

func step(format string, args ...any) error {
	if crashPoint == nil {
		return nil
	}
	return crashPoint(fmt.Sprintf(format, args...))
}

// encode prints m as it is stored.
func (m *manifest) encode() []byte {
	b, _ := json.Marshal(m) // strings and bools only: cannot fail
	return b
}

// parseManifest reads a manifest strictly: exactly the four keys, no duplicates, version 1,
// a valid source name, record file names each at most once, nothing after the object.
// Anything else could be a journal this code does not understand, and guessing would risk
// the records it guards.
func parseManifest(data []byte) (*manifest, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w (%s); %s", errManifest, fmt.Sprintf(format, args...), repairAdvice)
	}
	if len(data) > maxManifestSize {
		return nil, bad("larger than %d bytes", maxManifestSize)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var m manifest
	seen, err := object(dec, func(key string) error {
		switch key {
		case "version":
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil || string(raw) != "1" {
				return errors.New("version must be 1")
			}
			m.Version = 1
		case "source":
			if err := dec.Decode(&m.Source); err != nil || !ref.ValidName(m.Source) {
				return errors.New("source must be a source name")
			}
		case "complete":
			b, err := boolean(dec)
			if err != nil {
				return errors.New("complete must be true or false")
			}
			m.Complete = b
		case "changes":
			return changes(dec, &m)
		default:
			return fmt.Errorf("unknown key %q", key)
		}
		return nil
	})
	if err != nil {
		return nil, bad("%v", err)
	}
	for _, k := range []string{"changes", "complete", "source", "version"} {
		if !seen[k] {
			return nil, bad("%s is missing", k)
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("data after the object")
	}
	return &m, nil
}

// changes reads the changes list.
func changes(dec *json.Decoder, m *manifest) error {
	if t, err := dec.Token(); err != nil {
		return errors.New("not valid JSON")
	} else if t != json.Delim('[') {
		return errors.New("changes must be a list")
	}
	names := map[string]bool{}
	for dec.More() {
		i := len(m.Changes)
		if i == maxChanges {
			return fmt.Errorf("more than %d changes", maxChanges)
		}
		var e entry
		seen, err := object(dec, func(key string) error {
			switch key {
			case "name":
				if err := dec.Decode(&e.Name); err != nil || !record.ValidFileName(e.Name) && e.Name != provenance.LedgerName {
					return errors.New("name must be a record file name or " + provenance.LedgerName)
				}
			case "existed":
				b, err := boolean(dec)
				if err != nil {
					return errors.New("existed must be true or false")
				}
				e.Existed = b
			default:
				return fmt.Errorf("unknown key %q", key)
			}
			return nil
		})
		if err == nil && (!seen["name"] || !seen["existed"]) {
			err = errors.New("name and existed are required")
		}
		if err == nil && names[e.Name] {
			err = errors.New("the file is listed twice")
		}
		if err != nil {
			return fmt.Errorf("changes.%d: %v", i, err)
		}
		names[e.Name] = true
		m.Changes = append(m.Changes, e)
	}
	if _, err := dec.Token(); err != nil {
		return errors.New("not valid JSON")
	}
	if m.Changes == nil {
		m.Changes = []entry{}
	}
	return nil
}

// boolean reads true or false; null, which encoding/json would take as false, is refused.
func boolean(dec *json.Decoder) (bool, error) {
	t, err := dec.Token()
	if b, ok := t.(bool); ok && err == nil {
		return b, nil
	}
	return false, errors.New("not a boolean")
}

// object reads one JSON object, calling member for each key with the decoder positioned
// at its value. A key given twice is refused; the keys seen are returned, for the caller
// to check the required ones.
func object(dec *json.Decoder, member func(key string) error) (map[string]bool, error) {
	if t, err := dec.Token(); err != nil {
		return nil, errors.New("not valid JSON")
	} else if t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return seen, errors.New("not valid JSON")
		}
		key, _ := t.(string)
		if seen[key] {
			return seen, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		if err := member(key); err != nil {
			return seen, err
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return seen, errors.New("not valid JSON")
	}
	return seen, nil
}

// apply runs the transaction for changes in memories/source. The caller holds the record
// lock, has recovered, and rolls back when apply fails.
func apply(root, source string, changes []change) error {
	mem := filepath.Join(root, memoriesDir)
	src := filepath.Join(mem, source)
	pdir := filepath.Join(mem, pendingDir)
	srcRel := memoriesDir + "/" + source
	if err := makeDir(root, mem); err != nil {
		return fmt.Errorf("cannot create %s: %w", memoriesDir, durable.Cause(err))
	}
	if err := makeDir(mem, src); err != nil {
		return fmt.Errorf("cannot create %s: %w", srcRel, durable.Cause(err))
	}

	// 1. Back up what will be replaced or deleted, durably, before the manifest names it.
	if err := os.Mkdir(pdir, 0o755); err != nil {
		return fmt.Errorf("cannot start a transaction in memories/.pending: %w", durable.Cause(err))
	}
	if err := durable.SyncDir(mem); err != nil {
		return fmt.Errorf("cannot sync %s: %w", memoriesDir, durable.Cause(err))
	}
	if err := step("journal created"); err != nil {
		return err
	}
	m := manifest{Version: 1, Source: source, Changes: make([]entry, len(changes))}
	for i, c := range changes {
		m.Changes[i] = entry{Name: c.name, Existed: c.existed}
		if !c.existed {
			continue
		}
		if err := backup(filepath.Join(src, c.name), filepath.Join(pdir, backupName(i))); err != nil {
			return fmt.Errorf("cannot back up %s/%s into memories/.pending: %w", srcRel, c.name, durable.Cause(err))
		}
		if err := step("backup %d", i); err != nil {
			return err
		}
	}
	if err := durable.SyncDir(pdir); err != nil {
		return fmt.Errorf("cannot sync memories/.pending: %w", durable.Cause(err))
	}
	if err := step("backups synced"); err != nil {
		return err
	}

	// 2. The manifest: from here on recovery rolls back.
	if err := writeAtomic(pdir, manifestName, m.encode(), 0o644, nil); err != nil {
		return fmt.Errorf("cannot write memories/.pending/manifest.json: %w", durable.Cause(err))
	}
	if err := durable.SyncDir(pdir); err != nil {
		return fmt.Errorf("cannot sync memories/.pending: %w", durable.Cause(err))
	}
	if err := step("manifest written"); err != nil {
		return err
	}

	// 3. The changes, then one sync of the folder that makes every rename durable.
	for i, c := range changes {
		if c.data == nil {
			if err := os.Remove(filepath.Join(src, c.name)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("cannot remove %s/%s: %w", srcRel, c.name, durable.Cause(err))
			}
			if err := step("delete %d", i); err != nil {
				return err
			}
			continue
		}
		if err := writeAtomic(src, c.name, c.data, 0o644, func() error { return step("temp %d", i) }); err != nil {
			return fmt.Errorf("cannot write %s/%s: %w", srcRel, c.name, durable.Cause(err))
		}
		if err := step("write %d", i); err != nil {
			return err
		}
	}
	if err := durable.SyncDir(src); err != nil {
		return fmt.Errorf("cannot sync %s: %w", srcRel, durable.Cause(err))
	}
	if err := step("source synced"); err != nil {
		return err
	}

	// 4. Complete: from here on recovery keeps the new state.
	m.Complete = true
	if err := writeAtomic(pdir, manifestName, m.encode(), 0o644, nil); err != nil {
		return fmt.Errorf("cannot mark memories/.pending/manifest.json complete: %w", durable.Cause(err))
	}
	if err := durable.SyncDir(pdir); err != nil {
		return fmt.Errorf("cannot sync memories/.pending: %w", durable.Cause(err))
	}
	if step("complete") != nil {
		return nil // committed: a failure from here on only leaves the journal to clear
	}

	// 5. Clean up. The records are committed; a journal left behind is cleared by the next
	// writer and does not block readers, so a failure here is not the commit's.
	clearJournal(mem, pdir, m.Changes)
	return nil
}

// backupName is the backup of the change at position i.
func backupName(i int) string { return strconv.Itoa(i) + ".before" }

// clearJournal removes the backups of changes and then the manifest, which goes last so an
// interrupted clean-up still shows a completed transaction, then the folder. Failures are
// left for the next recovery.
func clearJournal(mem, pdir string, changes []entry) {
	for i, c := range changes {
		if !c.Existed {
			continue
		}
		if err := os.Remove(filepath.Join(pdir, backupName(i))); err != nil && !os.IsNotExist(err) {
			return
		}
		if step("clean %d", i) != nil {
			return
		}
	}
	if err := os.Remove(filepath.Join(pdir, manifestName)); err != nil && !os.IsNotExist(err) {
		return
	}
	if step("manifest removed") != nil {
		return
	}
	if err := os.Remove(pdir); err != nil && !os.IsNotExist(err) {
		return
	}
	durable.SyncDir(mem)
}
