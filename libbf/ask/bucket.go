package ask

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/lock"
)

// The question allowance: a token bucket of Burst questions refilled at Burst a minute,
// per user on this machine, shared by bf ask and the MCP ask tool.
const (
	Burst      = 20
	refillTime = time.Minute
)

// Files of the allowance in the user's state folder.
const (
	bucketFile = "ask-allowance.json"
	bucketLock = "ask-allowance.lock"
)

// LimitError says the allowance is spent and when the next question is allowed.
type LimitError struct {
	Retry time.Duration
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("at most %d questions a minute; retry in %d s", Burst, int(math.Ceil(e.Retry.Seconds())))
}

// bucket is the persisted state.
type bucket struct {
	Tokens float64   `json:"tokens"`
	At     time.Time `json:"at"`
}

// take spends one question from the allowance kept in dir at now, or fails with
// *LimitError. The file is read and written under an exclusive lock, so concurrent
// processes share one allowance; a missing or unreadable file is a full bucket.
func take(ctx context.Context, dir string, now time.Time) error {
	l, err := lock.Acquire(ctx, dir, bucketLock, true, 10*time.Second)
	if err != nil {
		return fmt.Errorf("question allowance: %w", err)
	}
	defer l.Release()
	file := filepath.Join(dir, bucketFile)
	b := bucket{Tokens: Burst, At: now}
	if raw, err := os.ReadFile(file); err == nil {
		var stored bucket
		if json.Unmarshal(raw, &stored) == nil && !stored.At.IsZero() && stored.Tokens >= 0 && stored.Tokens <= Burst {
			b = stored
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("question allowance: %w", err)
	}
	if elapsed := now.Sub(b.At); elapsed > 0 {
		b.Tokens = math.Min(Burst, b.Tokens+elapsed.Seconds()*Burst/refillTime.Seconds())
	}
	b.At = now
	if b.Tokens < 1 {
		need := (1 - b.Tokens) * refillTime.Seconds() / Burst
		return &LimitError{Retry: time.Duration(need * float64(time.Second))}
	}
	b.Tokens--
	raw, _ := json.Marshal(b)
	if err := durable.WriteFile(file, raw, 0o600); err != nil {
		return fmt.Errorf("question allowance: %w", err)
	}
	return nil
}
