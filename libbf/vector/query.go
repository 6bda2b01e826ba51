package vector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/durable"
)

// searchedWithout ends every note of a search that ran without the dense strategy.
const searchedWithout = "; searched with lexical, graph and recency"

// cooldownFile, in the brain's state folder, records the provider's last failed query
// embedding, so every process skips the provider until the cooldown ends.
const cooldownFile = "embeddings-cooldown.json"

// cooldown is the content of cooldownFile.
type cooldown struct {
	// Provider tells which declaration failed: a changed bf.yaml is tried at once.
	Provider string    `json:"provider"`
	Failed   time.Time `json:"failed"`
	Until    time.Time `json:"until"`
	Reason   string    `json:"reason"`
}

// queryVector is the query's unit vector from the brain's provider, asked within the
// query deadline (embeddings.query_timeout; a shorter timeout still bounds each call)
// rather than a build's, unless the provider
// failed within the cooldown (embeddings.cooldown). A non-empty note says why there is
// none: the failure, the cooldown, or a vector whose length differs from the stored
// ones. A failure starts a cooldown every process of this brain shares; the caller's own
// cancellation is returned as an error and starts none.
func queryVector(ctx context.Context, b *brain.Brain, p *Provider, query string, stored int) ([]float32, string, error) {
	state := cooldownPath(b)
	now := time.Now().UTC()
	if cd, ok := readCooldown(state, p.cooldownKey()); ok && p.cfg.Cooldown > 0 && now.Before(cd.Until) {
		return nil, fmt.Sprintf("embeddings provider %s failed at %s (%s); skipped until %s (embeddings.cooldown)%s",
			p.Model(), stamp(cd.Failed), cd.Reason, stamp(cd.Until), searchedWithout), nil
	}
	limit := time.Duration(p.cfg.QueryTimeout) * time.Second
	qctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	vecs, err := p.Embed(qctx, []string{query})
	if err != nil && ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	var reason string
	switch {
	case errors.Is(qctx.Err(), context.DeadlineExceeded):
		reason = fmt.Sprintf("embeddings provider %s did not answer within %d s (embeddings.query_timeout)", p.Model(), p.cfg.QueryTimeout)
	case err != nil:
		reason = err.Error()
	}
	if reason != "" {
		return nil, failed(state, p, now, reason) + searchedWithout, nil
	}
	if state != "" {
		os.Remove(state) // the provider answers again
	}
	v := unit(vecs[0])
	if v == nil {
		return nil, "the embeddings provider returned an empty vector for the query" + searchedWithout, nil
	}
	if msg := dimensionsDiffer(p.Model(), "a query vector", len(v), stored); msg != "" {
		return nil, msg + searchedWithout, nil
	}
	return v, "", nil
}

// failed records a failure of the query embedding and says what follows from it.
func failed(state string, p *Provider, now time.Time, reason string) string {
	wait := time.Duration(p.cfg.Cooldown) * time.Second
	if wait == 0 || state == "" {
		return reason
	}
	cd := cooldown{Provider: p.cooldownKey(), Failed: now, Until: now.Add(wait), Reason: reason}
	data, err := json.Marshal(cd)
	if err == nil {
		err = durable.WriteFile(state, append(data, '\n'), 0o600)
	}
	if err != nil {
		return reason // no state to share: the next search asks again
	}
	return fmt.Sprintf("%s; skipped until %s (embeddings.cooldown)", reason, stamp(cd.Until))
}

// readCooldown reads the recorded failure of the provider with key; ok is false when
// there is none, it is unreadable, or it concerns another declaration.
func readCooldown(state, key string) (cooldown, bool) {
	var cd cooldown
	if state == "" {
		return cd, false
	}
	data, err := os.ReadFile(state)
	if err != nil || json.Unmarshal(data, &cd) != nil || cd.Provider != key {
		return cd, false
	}
	return cd, true
}

// cooldownPath is where the brain's cooldown is recorded, "" when its state folder is
// unavailable (then every search asks the provider).
func cooldownPath(b *brain.Brain) string {
	dir, err := brain.System().BrainStateDir(b.ID)
	if err != nil {
		return ""
	}
	return filepath.Join(dir, cooldownFile)
}

// cooldownKey tells one provider declaration from another: every key of bf.yaml
// embeddings, so any change to it is tried at once.
func (p *Provider) cooldownKey() string {
	data, _ := json.Marshal(p.cfg)
	return string(data)
}

// stamp prints an instant in UTC to the second.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
