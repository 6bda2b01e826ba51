// Package store writes a source's records into memories/SOURCE/ as one transaction, and
// recovers a transaction that was interrupted.
//
// A commit journals itself in memories/.pending/: it keeps a backup of every file it will
// replace or delete (<N>.before, N being the change's position in the manifest), writes
// manifest.json saying "complete":false, changes the files, syncs the source folder, then
// marks the manifest complete and clears the journal. Whatever instant a commit dies at,
// Recover turns the source folder back into exactly its state before the commit (manifest
// incomplete) or leaves exactly its state after it (manifest complete), and removes the
// journal. Every writer recovers before it writes.
//
// Writers hold .bf/reader.lock exclusively for the whole transaction: cache readers hold it
// shared while they compare the brain with the index, so they never index half a commit.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/bfgo/bf/libbf/bfdir"
	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/lock"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/ref"
)

// DefaultWait is how long a writer waits for another one to finish.
const DefaultWait = 120 * time.Second

// Limits of one transaction.
const (
	maxManifestSize = 16 << 20 // bytes of memories/.pending/manifest.json
	maxChanges      = 100_000  // files one transaction writes or deletes
)

// Where things live, relative to the brain root.
const (
	stateDir     = bfdir.Name
	lockFile     = "reader.lock" // the cache's reader lock: shared by readers, exclusive here
	memoriesDir  = "memories"
	pendingDir   = ".pending" // inside memories/
	manifestName = "manifest.json"
)

// maxEntries caps the entries of a source folder; tests lower it.
var maxEntries = record.MaxEntriesPerSource

var (
	// ErrInterrupted is what readers say while an incomplete transaction exists.
	ErrInterrupted = errors.New("records contain an interrupted transaction; run bf build or bf update to recover it before reading")
	// errBusy reports that another process kept the record lock for the whole wait.
	errBusy = errors.New("another bf process is writing records in this brain; retry when it finishes")
	// errManifest reports a journal manifest recovery cannot trust; nothing was changed.
	errManifest = errors.New("invalid memories/.pending manifest")
	// errUnexpected reports a file in memories/.pending that no transaction writes.
	errUnexpected = errors.New("unexpected file in memories/.pending")
	// errRemovalGuard reports a snapshot that would remove suspiciously many records.
	errRemovalGuard = errors.New("snapshot removal guard")
)

// Options tune a commit.
type Options struct {
	// Mode is config.ModeWindow (the default when empty: upsert) or config.ModeSnapshot (the
	// batch is the whole catalog: every other record file of the source is removed).
	Mode string
	// AllowRemoval lifts the snapshot removal guard. Callers set it only for manual runs.
	AllowRemoval bool
	// Observed is stamped as attributes.observed on every new revision; the zero time
	// means now.
	Observed time.Time
	// Wait is how long to wait for another writer (0: fail at once when busy).
	Wait time.Duration
}

// Counts says what a commit did to each record of the batch, and how many it removed.
type Counts struct {
	Added     int `json:"added"`
	Updated   int `json:"updated"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
}

// Commit stores recs as the records of source in the brain at root, as one transaction,
// and returns what changed. recs must already be valid with unique ids; a record that
// fails Canonical or a repeated id fails the commit before anything is written. So does
// an existing file the commit would replace or remove but cannot attribute to its record
// (it cannot be parsed, or holds another id): bf never destroys evidence it cannot name.
//
// The rules, per record: a new file is added; an existing file whose record equals the
// incoming one but for attributes.observed is left untouched (unchanged); a stored
// revision whose attributes.updated is later than the incoming one is kept (unchanged)
// unless its own clock is suspect (updated later than observed); anything else, including
// a file that holds the record's id but breaks today's rules, is replaced (updated). New
// revisions get attributes.observed = opt.Observed.
//
// Commit first recovers an interrupted transaction and sweeps temporary files, and holds
// the record lock throughout, waiting up to opt.Wait for it (errBusy). Once the journal is
// started ctx is no longer consulted: stopping half way would only mean rolling back.
func Commit(ctx context.Context, root, source string, recs []record.Record, opt Options) (Counts, error) {
	if err := checkArgs(source, opt); err != nil {
		return Counts{}, err
	}
	l, err := lockRecords(ctx, root, true, opt.Wait)
	if err != nil {
		return Counts{}, err
	}
	defer l.Release()
	if err := recoverLocked(root); err != nil {
		return Counts{}, err
	}
	for _, rel := range []string{memoriesDir, memoriesDir + "/" + source} {
		if err := checkFolder(root, rel); err != nil {
			return Counts{}, err
		}
	}
	src := filepath.Join(root, memoriesDir, source)
	if err := sweepTemp(src); err != nil {
		return Counts{}, fmt.Errorf("cannot remove temporary files in memories/%s: %w", source, durable.Cause(err))
	}
	p, err := decide(root, source, recs, opt)
	if err != nil {
		return Counts{}, err
	}
	if len(p.changes) == 0 {
		return p.counts, nil
	}
	if err := ctx.Err(); err != nil {
		return Counts{}, err
	}
	if err := apply(root, source, p.changes); err != nil {
		// Roll back at once so readers are not refused until the next writer comes.
		if rerr := recoverLocked(root); rerr != nil {
			return Counts{}, fmt.Errorf("%w; rolling the transaction back also failed: %v", err, rerr)
		}
		return Counts{}, err
	}
	return p.counts, nil
}

// Plan returns the counts Commit would return for the same arguments, writing no record
// (it may create .bf/ for its lock). It refuses with ErrInterrupted while an incomplete
// transaction exists, since the records it would compare with are not settled.
func Plan(ctx context.Context, root, source string, recs []record.Record, opt Options) (Counts, error) {
	if err := checkArgs(source, opt); err != nil {
		return Counts{}, err
	}
	l, err := lockRecords(ctx, root, false, opt.Wait)
	if err != nil {
		return Counts{}, err
	}
	defer l.Release()
	if bad, err := Interrupted(root); err != nil {
		return Counts{}, err
	} else if bad {
		return Counts{}, ErrInterrupted
	}
	p, err := decide(root, source, recs, opt)
	if err != nil {
		return Counts{}, err
	}
	return p.counts, nil
}

// checkArgs refuses arguments no batch could be stored with.
func checkArgs(source string, opt Options) error {
	if !ref.ValidName(source) {
		return fmt.Errorf("invalid source name %q: use a lowercase letter, then up to 63 lowercase letters, digits or hyphens", source)
	}
	switch opt.Mode {
	case "", config.ModeWindow, config.ModeSnapshot:
		return nil
	}
	return fmt.Errorf("invalid collection mode %q for source %s: use %s or %s", opt.Mode, source, config.ModeWindow, config.ModeSnapshot)
}

// lockRecords takes .bf/reader.lock: exclusive for a writer, shared for a planner.
func lockRecords(ctx context.Context, root string, exclusive bool, wait time.Duration) (*lock.Lock, error) {
	dir, err := prepareStateDir(root)
	if err != nil {
		return nil, err
	}
	l, err := lock.Acquire(ctx, dir, lockFile, exclusive, wait)
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, lock.ErrBusy):
		return nil, errBusy
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, err
	}
	return nil, fmt.Errorf("cannot lock %s/%s to write records: %w", stateDir, lockFile, durable.Cause(err))
}

// geteuid is the account that must own .bf/; tests replace it.
var geteuid = os.Geteuid

// prepareStateDir makes sure root/.bf is a real folder of the user's, mode 0700, creating
// it when missing: the rule the cache applies to the folder it shares with us. A writer
// was refused, so each refusal ends by telling the user to retry.
func prepareStateDir(root string) (string, error) {
	return bfdir.Prepare(root, geteuid(), ", then retry", stateDirError)
}

func stateDirError(err error) error {
	switch {
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("cannot create .bf for the record lock: the brain is on a read-only file system: %w", durable.Cause(err))
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot create .bf for the record lock: grant write access to the brain: %w", durable.Cause(err))
	}
	return fmt.Errorf("cannot use .bf for the record lock: %w", durable.Cause(err))
}

// Adopt confirms record files of source that collection did not write, as a person
// vouching for their current contents (bf review --accept): their names and digests join
// the source's ledger in one transaction, and no record file changes. names are base file
// names in memories/SOURCE/; none means every record file there. It returns how many files
// the ledger did not confirm before.
func Adopt(ctx context.Context, root, source string, names []string, wait time.Duration) (int, error) {
	if err := checkArgs(source, Options{}); err != nil {
		return 0, err
	}
	l, err := lockRecords(ctx, root, true, wait)
	if err != nil {
		return 0, err
	}
	defer l.Release()
	if err := recoverLocked(root); err != nil {
		return 0, err
	}
	srcRel := memoriesDir + "/" + source
	if err := checkFolder(root, memoriesDir); err != nil {
		return 0, err
	}
	if err := checkFolder(root, srcRel); err != nil {
		return 0, err
	}
	src := filepath.Join(root, memoriesDir, source)
	all, err := readNames(src)
	if err != nil {
		return 0, fmt.Errorf("cannot list %s: %w", srcRel, durable.Cause(err))
	}
	present := map[string]fs.FileMode{}
	for _, n := range all {
		present[n] = 0
	}
	if len(names) == 0 {
		for _, n := range all {
			if record.ValidFileName(n) {
				names = append(names, n)
			}
		}
	}
	var adopt []change
	for _, n := range names {
		if !record.ValidFileName(n) {
			return 0, fmt.Errorf("%s/%s: not a record file name (the SHA-256 of the record id, then .json)", srcRel, n)
		}
		if _, ok := present[n]; !ok {
			return 0, fmt.Errorf("%s/%s: no such record file", srcRel, n)
		}
		data, err := durable.ReadRegular(filepath.Join(src, n), record.MaxFileSize)
		if err != nil {
			return 0, fmt.Errorf("cannot read %s/%s: %w", srcRel, n, durable.Cause(err))
		}
		adopt = append(adopt, change{name: n, existed: true, data: data})
	}
	var old []byte
	if _, ok := present[provenance.LedgerName]; ok {
		if old, err = durable.ReadRegular(filepath.Join(src, provenance.LedgerName), provenance.MaxLedgerBytes); err != nil {
			return 0, fmt.Errorf("cannot read %s/%s: %w", srcRel, provenance.LedgerName, durable.Cause(err))
		}
	}
	before := provenance.ParseLedger(old)
	confirmed := 0
	for _, c := range adopt {
		if !before.Confirms(c.name, c.data) {
			confirmed++
		}
	}
	c, err := ledgerChange(src, srcRel, adopt, present)
	if err != nil || c == nil || confirmed == 0 {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := apply(root, source, []change{*c}); err != nil {
		if rerr := recoverLocked(root); rerr != nil {
			return 0, fmt.Errorf("%w; rolling the transaction back also failed: %v", err, rerr)
		}
		return 0, err
	}
	return confirmed, nil
}
