package assist

import (
	"context"
	"fmt"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/pages"
	"github.com/bfgo/bf/libbf/reply"
)

// Roots whose notes the review gate looks at, and the root of actions.
var reviewRoots = []string{"projects", "concepts", "actions"}

const actionsRoot = "actions"

// review reports whether some note of brain b is due for review at now: a project,
// concept or action that bf read's listings mark with review (its stale_after passed, its
// file has not changed for pages.reviewDays, or newer evidence links to it). It reads the
// brain's cache, as bf read does, and nothing else.
func review(ctx context.Context, b *brain.Brain, now time.Time) (bool, error) {
	for _, root := range reviewRoots {
		found := false
		err := eachItem(ctx, b, root, now, func(it *reply.Item) bool {
			found = it.Review
			return found
		})
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// openAction reports whether brain b holds an open action at now: an
// actions/FOLDER/ACTION.md that is not deprecated and lists at least one open task.
func openAction(ctx context.Context, b *brain.Brain, now time.Time) (bool, error) {
	found := false
	err := eachItem(ctx, b, actionsRoot, now, func(it *reply.Item) bool {
		found = open(it)
		return found
	})
	return found, err
}

// open reports whether a listed action is open: not deprecated, with an open task.
func open(it *reply.Item) bool {
	return it.Status != "deprecated" && it.Tasks != nil && it.Tasks.Open > 0
}

// eachItem calls f with every item of the listing of root, page by page, until f returns
// true. A root the brain lacks lists nothing.
func eachItem(ctx context.Context, b *brain.Brain, root string, now time.Time, f func(*reply.Item) bool) error {
	if !pages.IsFolder(b, root) {
		return nil
	}
	var offset int64
	for {
		v, err := pages.Read(ctx, pages.Request{Path: root, Brains: []*brain.Brain{b}, Offset: offset, Now: now})
		if err != nil {
			return fmt.Errorf("reading %s for when: %w", root, err)
		}
		l, ok := v.(*pages.Listing)
		if !ok {
			return fmt.Errorf("reading %s for when: not a listing", root)
		}
		for i := range l.Items {
			if f(&l.Items[i]) {
				return nil
			}
		}
		if l.NextOffset == nil {
			return nil
		}
		offset = *l.NextOffset
	}
}
