package cache

import (
	"context"
	"errors"
	"sync"
)

// A full build is CPU-bound, and on a machine with few cores it shares them with every
// reader that runs meanwhile: eight reader loops on two cores made a one-second build take
// four. A reader gains nothing from finishing first, since it answers from the generation
// it opened and the build is about to replace it, while every reader after the build waits
// for it. So a short-lived reader that finds a build in progress lowers its own CPU
// priority (nice 19) for the rest of its life: the build runs nearly as fast as alone, and
// the readers still run on what it leaves. The priority cannot be raised again without
// privilege, so only a process that ends with its answer may ask for this (YieldToBuilds):
// never a server (bf mcp, bf lsp) or bf watch, which would stay slow after the build.

type yieldKey struct{}

// YieldToBuilds marks ctx as a short-lived reader's: an Open under it that finds a full
// build in progress lowers the whole process's CPU priority, for good.
func YieldToBuilds(ctx context.Context) context.Context {
	return context.WithValue(ctx, yieldKey{}, true)
}

func yields(ctx context.Context) bool { y, _ := ctx.Value(yieldKey{}).(bool); return y }

// yieldToBuild lowers the process's priority when ctx asks for it and a build holds the
// build lock. The probe takes the lock shared and drops it at once: it never waits, and a
// build that tries meanwhile waits for it only that instant.
func yieldToBuild(ctx context.Context, dir string) {
	if !yields(ctx) {
		return
	}
	l, err := acquire(ctx, dir, buildLockFile, false, 0)
	if errors.Is(err, errBusy) {
		lowerPriority.Do(func() { setPriority() })
		return
	}
	l.release()
}

var (
	lowerPriority sync.Once
	setPriority   = setLowPriority // a test hook
)

// lowestPriority is the nice value a yielding reader takes: the lowest there is.
const lowestPriority = 19
