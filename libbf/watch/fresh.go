package watch

import (
	"context"
	"errors"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/cache"
)

// keepFresh keeps the brain's search cache fresh from file-system notifications while the
// watcher runs, so searches and reads need not list the brain (cache.Keep). It returns a
// function that stops it and waits. Where notifications are unavailable, or another
// watcher already keeps the cache, commands list the brain themselves as without a watcher.
func keepFresh(ctx context.Context, b *brain.Brain, warn func(string)) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := cache.Keep(ctx, b, cache.KeepOptions{})
		if err != nil && !errors.Is(err, cache.ErrKept) && ctx.Err() == nil && warn != nil {
			warn("the search cache is not kept fresh by this watcher (" + err.Error() + "); searches list the brain themselves")
		}
	}()
	return func() { cancel(); <-done }
}
