package watch

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"github.com/bfgo/bf/libbf/assist"
	"github.com/bfgo/bf/libbf/lock"
)

// lockName is the lock the collecting watcher holds in the brain's state folder.
const lockName = "watch.lock"

// collectorFile holds, in the brain's state folder, what the collecting watcher shows of
// itself, so an observer reports its cycles, not its own rereads.
const collectorFile = "watch.json"

// collector is what the collecting watcher shows an observer.
type collector struct {
	Cycles  int            `json:"cycles"`
	Running bool           `json:"running"`
	Last    *assist.Report `json:"last,omitempty"`
}

// msgNoCollector is an observer's message once no watcher collects.
const msgNoCollector = "no watcher collects for this brain: the one observed has stopped; start bf watch to collect"

// publish writes the collector's state for observers. It is rewritten every poll, so it
// is replaced without a sync; a failure only leaves observers an older state.
func (w *watcher) publish(l Line) {
	data, _ := json.Marshal(collector{Cycles: l.Cycles, Running: l.Running, Last: l.Last})
	file := filepath.Join(w.state, collectorFile)
	tmp := file + ".new"
	if os.WriteFile(tmp, data, 0o600) == nil {
		os.Rename(tmp, file)
	}
}

// unpublish removes the collector's state as the collecting watcher stops.
func (w *watcher) unpublish() { os.Remove(filepath.Join(w.state, collectorFile)) }

// observe looks at the collecting watcher: its published state while it holds the watch
// lock. Once none holds it, an observer that may take over (a second bf watch) takes the
// lock and collects from this cycle on; another (bf status --watch) reports that no
// watcher collects.
func (w *watcher) observe(ctx context.Context) {
	var l *lock.Lock
	var err error
	if w.opt.TakeOver {
		l, err = lock.AcquireOwned(ctx, w.state, lockName)
	} else {
		// A shared lock is had only while no watcher holds the exclusive one; it is
		// dropped at once, so a watcher starting meanwhile is held off for an instant.
		l, err = lock.Acquire(ctx, w.state, lockName, false, 0)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case errors.Is(err, lock.ErrBusy):
		w.gone = false
		var c collector
		if data, err := os.ReadFile(filepath.Join(w.state, collectorFile)); err == nil && json.Unmarshal(data, &c) == nil {
			w.seen = &c
		}
	case err != nil:
		w.gone = false
	case w.opt.TakeOver:
		// Its cycles count from here: the rereads before were the other watcher's.
		w.lock, w.opt.Observe, w.seen, w.gone, w.cycles = l, false, nil, false, 0
	default:
		l.Release()
		w.gone, w.seen = true, nil
	}
}
