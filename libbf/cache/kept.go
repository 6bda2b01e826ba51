package cache

import (
	"context"
	"os"
	"path/filepath"
	"syscall"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/internal/keepsync"
)

// What a keeper (package keeper, bf watch) needs of the cache: the comparison an Open makes,
// run whenever a sync asks for it. An Open asks the keeper by the protocol of package
// keepsync, and marks the cache there when it refreshes the cache itself.

// A Comparer brings the live generation up to date with one brain for its keeper.
type Comparer struct {
	b   *brain.Brain
	ix  *indexer
	sig string
}

// NewComparer prepares the comparison of b with its cache (again after bf.yaml changed).
func NewComparer(b *brain.Brain) *Comparer {
	return &Comparer{b: b, ix: newIndexer(b), sig: signature(b)}
}

// Brain is the brain compared.
func (c *Comparer) Brain() *brain.Brain { return c.b }

// Signature is what a generation built for the brain's bf.yaml is signed with; a sync
// names the signature it needs.
func (c *Comparer) Signature() string { return c.sig }

// Compare compares the brain with the live generation in the cache folder dir under the
// usual locks and refreshes what changed. It returns the generation's inode (see
// LiveInode) and its listing's problems. It never builds: a missing or incompatible
// generation is an error, and the keeper answers "not fresh" (the command then builds).
func (c *Comparer) Compare(ctx context.Context, dir string) (uint64, []brain.Problem, error) {
	gen, err := enterGeneration(ctx, dir)
	if err != nil {
		return 0, nil, err
	}
	defer gen.release()
	live := filepath.Join(dir, IndexFile)
	st, err := os.Lstat(live)
	if err != nil {
		return 0, nil, err
	}
	ino := inodeOf(st)
	reader, err := acquire(ctx, dir, readerLockFile, false, keepsync.Wait)
	if err != nil {
		return 0, nil, err
	}
	defer reader.release()
	writer, err := acquire(ctx, dir, WriterLockFile, true, keepsync.Wait)
	if err != nil {
		return 0, nil, err
	}
	defer releaseWriter(dir, writer)
	ro, err := openFile(live, true)
	if err != nil {
		return 0, nil, err
	}
	defer ro.Close()
	good, err := usable(ctx, ro, c.sig, ino)
	if err != nil {
		return 0, nil, err
	}
	if !good {
		return 0, nil, errNeedBuild
	}
	l, d, err := compare(ctx, ro, c.b.Root, clock())
	if err != nil {
		return 0, nil, err
	}
	if !d.empty() || len(d.digests) > 0 {
		rw, err := openFile(live, false)
		if err != nil {
			return 0, nil, err
		}
		err = refresh(ctx, rw, c.ix, c.b.Root, d)
		closeWriting(rw, live)
		if err != nil {
			return 0, nil, err
		}
	}
	return ino, l.problems, nil
}

// LiveInode is the inode of the live generation in the cache folder dir, and false when
// there is none. A build replaces the file, so another inode is another generation.
func LiveInode(dir string) (uint64, bool) {
	st, err := os.Lstat(filepath.Join(dir, IndexFile))
	if err != nil {
		return 0, false
	}
	return inodeOf(st), true
}

// PrepareDir makes sure root/.bf is a real folder owned by the user with mode 0700,
// creating it when missing, and returns its path.
func PrepareDir(root string) (string, error) { return prepareDir(root) }

// LockError explains a lock in .bf that could not be taken for another reason than being
// held, naming .bf.
func LockError(err error) error { return dirError(err) }

// inodeOf is a file's inode number (0 when the system gives none).
func inodeOf(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
