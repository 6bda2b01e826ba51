package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/timestamp"
)

// change is one file a transaction writes (data != nil) or deletes (data == nil).
type change struct {
	name    string // base name in memories/SOURCE/
	existed bool
	data    []byte
}

// plan is what a batch does to a source folder.
type plan struct {
	counts  Counts
	changes []change // sorted by name
}

// decide applies the upsert rules to the source folder as it is now. It reads, never
// writes, so Plan and Commit share it.
func decide(root, source string, recs []record.Record, opt Options) (*plan, error) {
	srcRel := memoriesDir + "/" + source
	src := filepath.Join(root, memoriesDir, source)
	if err := checkFolder(root, memoriesDir); err != nil {
		return nil, err
	}
	if err := checkFolder(root, srcRel); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(src)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot list %s: %w", srcRel, durable.Cause(err))
	}
	present := map[string]fs.FileMode{} // every entry but leftover temporary files
	records := 0
	for _, e := range entries {
		if tempName().MatchString(e.Name()) {
			continue
		}
		present[e.Name()] = e.Type()
		if record.ValidFileName(e.Name()) {
			records++
		}
	}

	observed := opt.Observed
	if observed.IsZero() {
		observed = time.Now()
	}
	stamp := timestamp.Canonical(observed)

	p := &plan{}
	wanted := make(map[string]int, len(recs))
	for i, rec := range recs {
		name := record.FileName(rec.ID)
		if j, dup := wanted[name]; dup {
			return nil, fmt.Errorf("records %d and %d of the batch for %s share an id; reconcile duplicate ids before collecting", j+1, i+1, srcRel)
		}
		wanted[name] = i
		file := srcRel + "/" + name
		incoming, err := withObserved(rec, "")
		if err != nil {
			return nil, fmt.Errorf("record %d of the batch for %s: %w", i+1, srcRel, err)
		}
		_, exists := present[name]
		var prev *record.Record
		if exists {
			if prev, err = loadOwn(src, name, file); err != nil {
				return nil, err
			}
		}
		if prev != nil {
			pu, ok1 := prev.Updated()
			ru, ok2 := rec.Updated()
			if ok1 && ok2 && pu.After(ru) && reliable(*prev) {
				p.counts.Unchanged++ // an older revision never replaces a newer one
				continue
			}
			stored, err := withObserved(*prev, "")
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			if bytes.Equal(stored, incoming) {
				p.counts.Unchanged++ // keeps the stored observed: this revision is not new
				continue
			}
		}
		data, err := withObserved(rec, stamp)
		if err != nil {
			return nil, fmt.Errorf("record %d of the batch for %s: %w", i+1, srcRel, err)
		}
		if exists {
			p.counts.Updated++
		} else {
			p.counts.Added++
		}
		p.changes = append(p.changes, change{name: name, existed: exists, data: data})
	}

	if opt.Mode == config.ModeSnapshot {
		var gone []string
		for name := range present {
			if _, keep := wanted[name]; !keep && record.ValidFileName(name) {
				gone = append(gone, name)
			}
		}
		slices.Sort(gone)
		if !opt.AllowRemoval {
			if err := guard(source, len(recs), len(gone), records); err != nil {
				return nil, err
			}
		}
		for _, name := range gone {
			if _, err := loadOwn(src, name, srcRel+"/"+name); err != nil {
				return nil, err
			}
			p.changes = append(p.changes, change{name: name, existed: true})
		}
		p.counts.Removed = len(gone)
	}

	if after := len(present) + p.counts.Added - p.counts.Removed; p.counts.Added > 0 && after > maxEntries {
		return nil, fmt.Errorf("%s would hold %d entries, more than %d; split the source or remove stray files from it", srcRel, after, maxEntries)
	}
	if len(p.changes) > maxChanges {
		return nil, fmt.Errorf("the batch would change %d files of %s, more than %d in one transaction; collect a shorter window", len(p.changes), srcRel, maxChanges)
	}
	slices.SortFunc(p.changes, func(a, b change) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	// The ledger goes last, after the records it names.
	if len(p.changes) > 0 {
		c, err := ledgerChange(src, srcRel, p.changes, present)
		if err != nil {
			return nil, err
		}
		if c != nil {
			p.changes = append(p.changes, *c)
		}
	}
	return p, nil
}

// guard refuses a snapshot that looks like a broken program rather than a shrinking
// catalog: nothing returned for a source that holds records, or more than half of them
// and more than 10 to remove.
func guard(source string, returned, removing, existing int) error {
	switch {
	case returned == 0 && existing > 0:
		return fmt.Errorf("%w: the snapshot of %s returned no records and would remove all %d; nothing was changed; rerun `bf collect %s --allow-removal` if that is intended",
			errRemovalGuard, source, existing, source)
	case removing > 10 && removing*2 > existing:
		return fmt.Errorf("%w: the snapshot of %s would remove %d of its %d records; nothing was changed; rerun `bf collect %s --allow-removal` if that is intended",
			errRemovalGuard, source, removing, existing, source)
	}
	return nil
}

// reliable reports whether a stored revision's clock can be trusted: a modification time
// later than the moment bf first saw the revision is a clock bf should not defer to.
func reliable(r record.Record) bool {
	u, _ := r.Updated()
	o, ok := r.Observed()
	return !ok || !u.After(o)
}

// withObserved returns the canonical bytes of r with attributes.observed set to stamp, or
// removed when stamp is empty. r itself is not changed.
func withObserved(r record.Record, stamp string) ([]byte, error) {
	attrs := maps.Clone(r.Attributes)
	if stamp != "" {
		if attrs == nil {
			attrs = map[string]any{}
		}
		attrs[record.AttrObserved] = stamp
	} else {
		delete(attrs, record.AttrObserved)
	}
	r.Attributes = attrs
	return r.Canonical()
}

// loadOwn reads the existing record file src/name, which a commit means to replace or
// remove. It returns the record when the file holds a valid one, nil when it holds the
// right id but breaks today's rules (so it may go), and an error when the file cannot be
// attributed to the record its name stands for.
func loadOwn(src, name, file string) (*record.Record, error) {
	data, err := durable.ReadRegular(filepath.Join(src, name), record.MaxFileSize)
	if err != nil {
		return nil, evidenceError(file, err)
	}
	rec, perr := record.Parse(data)
	if perr == nil {
		if err := record.CheckFileName(rec, name); err != nil {
			return nil, evidenceError(file, err)
		}
		return &rec, nil
	}
	id, ok := topLevelID(data)
	if !ok {
		return nil, evidenceError(file, perr)
	}
	if record.FileName(id) != name {
		return nil, evidenceError(file, errors.New("record id does not match its SHA-256 filename"))
	}
	return nil, nil
}

func evidenceError(file string, err error) error {
	return fmt.Errorf("%s: %w; bf never overwrites or removes a record file it cannot attribute: repair it or move it out of the folder, then retry", file, durable.Cause(err))
}

// topLevelID returns the id member of a JSON object whose other members may break the
// record rules. An id that is not a string, or that appears twice, does not count.
func topLevelID(data []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	id, found := "", false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
		if t != "id" {
			continue
		}
		if found || json.Unmarshal(v, &id) != nil {
			return "", false
		}
		found = true
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false
	}
	return id, found
}

// checkFolder refuses a folder on the path that is a symlink or a file: commits never
// write through links.
func checkFolder(root, rel string) error {
	st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("cannot read %s: %w", rel, durable.Cause(err))
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link; bf writes records only into real folders inside the brain: replace it with a folder, then retry", rel)
	case !st.IsDir():
		return fmt.Errorf("%s is not a folder; move it away so bf can store records there, then retry", rel)
	}
	return nil
}

// ledgerChange is the change to the source folder's ledger (provenance.LedgerName) that
// records the files changes write and forgets those they remove, or nil when the ledger
// would stay as it is. It is part of the transaction: a rollback restores the old ledger
// with the old records.
func ledgerChange(src, srcRel string, changes []change, present map[string]fs.FileMode) (*change, error) {
	_, existed := present[provenance.LedgerName]
	var old []byte
	if existed {
		var err error
		if old, err = durable.ReadRegular(filepath.Join(src, provenance.LedgerName), provenance.MaxLedgerBytes); err != nil {
			return nil, fmt.Errorf("cannot read %s/%s, the list of the records collection wrote: %w; move it away and run bf review --accept %s to confirm the records again",
				srcRel, provenance.LedgerName, durable.Cause(err), srcRel)
		}
	}
	l := provenance.ParseLedger(old)
	written := map[string]bool{}
	for _, c := range changes {
		if c.data == nil {
			l.Removed(c.name)
			continue
		}
		l.Wrote(c.name, c.data)
		written[c.name] = true
	}
	l.Keep(func(name string) bool {
		_, ok := present[name]
		return ok || written[name]
	})
	data := l.Encode()
	if existed && bytes.Equal(data, old) {
		return nil, nil
	}
	return &change{name: provenance.LedgerName, existed: existed, data: data}, nil
}
