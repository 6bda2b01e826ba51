package ask

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	burst      = 20
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
	return fmt.Sprintf("at most %d questions a minute; retry in %d s", burst, int(math.Ceil(e.Retry.Seconds())))
}

// bucket is the persisted state.
type bucket struct {
	Tokens float64   `json:"tokens"`
	At     time.Time `json:"at"`
}

// take spends one question from the allowance kept in dir at now, or fails with
// *LimitError. The file is read and written under an exclusive lock, so concurrent
// processes share one allowance. A missing file is a full bucket (the first question);
// a file that cannot be trusted is an empty one (see stored).
func take(ctx context.Context, dir string, now time.Time) error {
	l, err := lock.Acquire(ctx, dir, bucketLock, true, 10*time.Second)
	if err != nil {
		return fmt.Errorf("question allowance: %w", err)
	}
	defer l.Release()
	file := filepath.Join(dir, bucketFile)
	b := bucket{Tokens: burst, At: now}
	if raw, err := os.ReadFile(file); err == nil {
		b = stored(raw, now)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("question allowance: %w", err)
	}
	if elapsed := now.Sub(b.At); elapsed > 0 {
		b.Tokens = math.Min(burst, b.Tokens+elapsed.Seconds()*burst/refillTime.Seconds())
	}
	b.At = now.UTC()
	var refused error
	if b.Tokens < 1 {
		need := (1 - b.Tokens) * refillTime.Seconds() / burst
		refused = &LimitError{Retry: time.Duration(need * float64(time.Second))}
	} else {
		b.Tokens--
	}
	// A refusal writes too: a damaged file is replaced by the empty bucket it stood for,
	// so the wait runs from when the damage was found instead of starting again at every
	// question.
	raw, _ := json.Marshal(b)
	if err := durable.WriteFile(file, raw, 0o600); err != nil {
		return fmt.Errorf("question allowance: %w", err)
	}
	return refused
}

// stored is the bucket the file holds, or, when the file cannot be trusted, an empty
// bucket as of now that refills at the usual rate: the allowance fails closed. Damaged or
// unparseable JSON, a field missing or unknown, a count that is negative, not a number or
// above Burst, and a last refill later than now (a clock set back, a hand-written date)
// all give an empty bucket, never a full one, so that no damage buys more questions
// than the steady rate.
func stored(raw []byte, now time.Time) bucket {
	empty := bucket{Tokens: 0, At: now}
	var b struct {
		Tokens *float64   `json:"tokens"`
		At     *time.Time `json:"at"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if dec.Decode(&b) != nil || dec.More() || b.Tokens == nil || b.At == nil {
		return empty
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return empty
	}
	tokens, at := *b.Tokens, *b.At
	if math.IsNaN(tokens) || tokens < 0 || tokens > burst || at.IsZero() || at.After(now) {
		return empty
	}
	return bucket{Tokens: tokens, At: at}
}
