package cache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestBuildAmidReaders runs a build while readers open and close the cache without pause.
// The swap must get its turn: the build succeeds (before the turnstile it waited for a
// moment when no reader held the generation, and failed busy after 30 s), and once the
// build holds the turnstile no reader enters the old generation except those already
// past the turnstile, at most one per reader. Readers serve stale only while the build
// runs: every open that starts after the build returned is fresh.
func TestBuildAmidReaders(t *testing.T) {
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("projects/p%02d.md", i)] = fmt.Sprintf("---\ntype: project\n---\n# P%d\n\nLedger %d.\n", i, i)
	}
	f := newFixture(t, files)
	f.build()
	const readers = 6
	var (
		turnstile, swapped atomic.Bool
		overtook           atomic.Int64 // opens that entered after the build took the turnstile
		built              atomic.Bool
		staleAfter         atomic.Int64 // stale opens that started after the build returned
		stop               = make(chan struct{})
		wg                 sync.WaitGroup
		failures           = make(chan error, readers)
	)
	onTurnstile = func() { turnstile.Store(true) }
	onSwap = func() { swapped.Store(true) }
	defer func() { onTurnstile, onSwap = nil, nil }()
	b := f.brain()
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				after := built.Load()
				c, err := Open(context.Background(), b)
				if err != nil {
					failures <- err
					return
				}
				if turnstile.Load() && !swapped.Load() {
					overtook.Add(1)
				}
				if after && c.Status.Stale {
					staleAfter.Add(1)
				}
				c.Close()
			}
		}()
	}
	if _, err := Build(context.Background(), b, nil); err != nil {
		t.Errorf("build amid readers: %v", err)
	}
	built.Store(true)
	for range 3 * readers { // a few more rounds of opens after the build
		c := f.open()
		if c.Status.Stale {
			staleAfter.Add(1)
		}
		c.Close()
	}
	close(stop)
	wg.Wait()
	close(failures)
	for err := range failures {
		t.Errorf("reader: %v", err)
	}
	if n := overtook.Load(); n > readers {
		t.Errorf("%d opens entered the old generation while the build waited to swap; at most %d may", n, readers)
	}
	if n := staleAfter.Load(); n != 0 {
		t.Errorf("%d opens after the build served stale", n)
	}
}
