// Package keeper keeps one brain's cache fresh from file-system notifications (bf watch),
// so an Open need not list the brain itself: it asks the keeper to sync and waits for the
// answer (the protocol of package keepsync). The keeper compares the brain with the cache
// through package cache, which never imports this one.
package keeper

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/internal/keepsync"
	flock "github.com/bfgo/bf/libbf/lock"
)

// keeperLockFile, in .bf/, is held exclusive by the one keeper of a brain.
const keeperLockFile = "keeper.lock"

// ErrNoKeeper says this system or brain cannot be kept fresh from notifications; Opens
// list the brain themselves.
var ErrNoKeeper = errors.New("file-system notifications are not available for this brain; every command lists it")

// ErrKept says another keeper already keeps the brain fresh.
var ErrKept = errors.New("another bf watch keeps this brain's cache fresh")

// onKeeperCompare is called when the keeper compares the brain (tests count it).
var onKeeperCompare func()

// Options tune Keep.
type Options struct {
	// Settle is how long the keeper waits after a change before refreshing on its own;
	// 0: 100 ms. A sync refreshes at once.
	Settle time.Duration
	// Ready, when set, is called once the keeper answers syncs and has compared the brain
	// with the cache (or found no cache to compare yet).
	Ready func()
}

// keeperState is what the keeper knows between notifications.
type keeperState struct {
	cmp *cache.Comparer
	// dirty says a change was seen since the last comparison began.
	dirty bool
	// ino is the inode of the generation last compared; problems its listing's problems.
	ino      uint64
	problems []brain.Problem
	// broken says the notifications cannot be trusted (overflow, a folder not watched):
	// every answer is "not fresh" until the watches are set again and a comparison done.
	broken bool
}

// compareNow compares the brain with the live generation and refreshes what changed. It
// never builds: a missing or incompatible generation leaves the keeper answering "not
// fresh" (the command then builds).
func (k *keeperState) compareNow(ctx context.Context, dir string) error {
	if onKeeperCompare != nil {
		onKeeperCompare()
	}
	k.dirty = false
	k.ino = 0
	ino, problems, err := k.cmp.Compare(ctx, dir)
	if err != nil {
		return err
	}
	k.ino, k.problems = ino, problems
	return nil
}

// answer decides a sync's reply once every notification before its cookie was read.
func (k *keeperState) answer(ctx context.Context, dir string, req keepsync.Request) keepsync.Reply {
	if k.broken || req.Signature != k.cmp.Signature() {
		return keepsync.Reply{}
	}
	// A build replaces the file (its notification also marks the state dirty): the new
	// generation's files were listed by the build, maybe before a change the keeper saw.
	if ino, ok := cache.LiveInode(dir); !ok || ino != k.ino {
		k.dirty = true
	}
	if k.dirty {
		if err := k.compareNow(ctx, dir); err != nil {
			return keepsync.Reply{}
		}
	}
	return keepsync.Reply{Fresh: true, Problems: k.problems}
}

// reload reads bf.yaml again after it changed.
func (k *keeperState) reload() {
	root := k.cmp.Brain().Root
	if b, err := brain.Open(root); err == nil && b.Root == root {
		k.cmp = cache.NewComparer(b)
	}
	k.dirty = true
}

// listenKeeper takes the keeper lock and listens on the socket, replacing a stale one.
func listenKeeper(ctx context.Context, dir string) (net.Listener, *flock.Lock, error) {
	sock := filepath.Join(dir, keepsync.Socket)
	if len(sock) > keepsync.MaxSocketPath {
		return nil, nil, fmt.Errorf("%w (the path of .bf is too long for a socket)", ErrNoKeeper)
	}
	l, err := flock.Acquire(ctx, dir, keeperLockFile, true, 0)
	if errors.Is(err, flock.ErrBusy) {
		return nil, nil, ErrKept
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, nil, err
		}
		return nil, nil, cache.LockError(err)
	}
	os.Remove(sock) // only the lock holder serves: a socket left here is stale
	ln, err := net.Listen("unix", sock)
	if err != nil {
		l.Release()
		return nil, nil, fmt.Errorf("cannot serve syncs in .bf: %w", durable.Cause(err))
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	return ln, l, nil
}
