//go:build !linux

package keeper

import (
	"context"

	"github.com/bfgo/bf/libbf/brain"
)

// Keep is not available here: without inotify every Open lists the brain itself.
func Keep(ctx context.Context, b *brain.Brain, opt Options) error { return ErrNoKeeper }
