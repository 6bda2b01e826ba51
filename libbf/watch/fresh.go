package watch

import (
	"context"
	"errors"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/keeper"
)

// keepFresh keeps the brain's search cache fresh from file-system notifications while the
// watcher runs, so searches and reads need not list the brain (keeper.Keep). It returns
// once the keeper has compared the brain (or could not start), so the first cycle reads a
// cache holding every file present at start: while the keeper refreshes, the cycle's own
// opens would find the writer busy and read the previous generation. The function it
// returns stops the keeper and waits. Where notifications are unavailable, or another
// watcher already keeps the cache, commands list the brain themselves as without a watcher.
func keepFresh(ctx context.Context, b *brain.Brain, warn func(string)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	ready := make(chan struct{})
	go func() {
		defer close(done)
		err := keeper.Keep(ctx, b, keeper.Options{Ready: func() { close(ready) }})
		if err != nil && !errors.Is(err, keeper.ErrKept) && ctx.Err() == nil && warn != nil {
			warn("the search cache is not kept fresh by this watcher (" + err.Error() + "); searches list the brain themselves")
		}
	}()
	select {
	case <-ready:
	case <-done:
	case <-ctx.Done():
	}
	return func() { cancel(); <-done }
}
