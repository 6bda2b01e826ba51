package vector

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/fuse"
)

// Modes of the switchable provider.
const (
	answer   = iota // the fake vectors
	hang            // no answer until the caller gives up
	short           // vectors of 32 dimensions instead of 64
	mixed           // the first text of a call gets 32 dimensions, the others 64
	httpFail        // HTTP 503
)

// switchable is an OpenAI-compatible endpoint whose behaviour the test changes, counting
// the calls it receives.
func switchable(t *testing.T, mode *atomic.Int32, calls *atomic.Int32) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		m := mode.Load()
		switch m {
		case hang:
			<-r.Context().Done()
			return
		case httpFail:
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		var data []datum
		for i, text := range req.Input {
			v := fake(text)
			if m == short || m == mixed && i == 0 {
				v = v[:32]
			}
			data = append(data, datum{i, v})
		}
		writeData(w, data)
	}))
	t.Cleanup(s.Close)
	return s
}

// datum is one vector of an embeddings reply, with the index of its text.
type datum struct {
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// writeData writes an OpenAI-compatible embeddings reply.
func writeData(w http.ResponseWriter, data []datum) {
	json.NewEncoder(w).Encode(map[string][]datum{"data": data})
}

// timedFused is a fused search with how long it took and its dense note.
func timedFused(t *testing.T, b *brain.Brain, query string) (time.Duration, string) {
	t.Helper()
	start := time.Now()
	out := fused(t, b, query)
	return time.Since(start), out.Fused.Unavailable[fuse.Dense]
}

// A hung provider costs one query deadline, not the build timeout, and then searches skip
// it for the cooldown, in every process (the state is a file); an answer ends it early.
func TestQueryDeadlineAndCooldown(t *testing.T) {
	var mode, calls atomic.Int32
	s := switchable(t, &mode, &calls)
	b := writeBrain(t, "embeddings:\n  url: "+s.URL+"/v1/embeddings\n  model: fake-model\n  timeout: 30\n  query_timeout: 1\n")
	if _, err := Embed(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	mode.Store(hang)
	calls.Store(0)
	took, note := timedFused(t, b, "freeze balances")
	if took > 10*time.Second || !strings.HasPrefix(note, "embeddings provider fake-model did not answer within 1 s (embeddings.query_timeout); skipped until ") ||
		!strings.HasSuffix(note, " (embeddings.cooldown); searched with lexical, graph and recency") {
		t.Fatalf("hung provider: took %s, note %q", took, note)
	}
	took, note = timedFused(t, b, "freeze balances")
	if took > time.Second || calls.Load() != 1 ||
		!strings.HasPrefix(note, "embeddings provider fake-model failed at ") || !strings.Contains(note, " (embeddings provider fake-model did not answer within 1 s (embeddings.query_timeout)); skipped until ") {
		t.Fatalf("in cooldown: took %s, %d calls, note %q", took, calls.Load(), note)
	}
	// The cooldown is kept in the brain's state folder, where another process reads it.
	dir, err := brain.System().BrainStateDir(b.ID)
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, cooldownFile)
	var cd cooldown
	if data, err := os.ReadFile(state); err != nil || json.Unmarshal(data, &cd) != nil || cd.Until.Sub(cd.Failed) != 60*time.Second {
		t.Fatalf("state %+v, %v", cd, err)
	}
	// Once the cooldown is over the provider is asked again, and an answer clears it.
	cd.Until = time.Now().Add(-time.Second)
	data, _ := json.Marshal(cd)
	os.WriteFile(state, data, 0o600)
	mode.Store(answer)
	if _, note := timedFused(t, b, "freeze balances"); note != "" || calls.Load() != 2 {
		t.Fatalf("after the cooldown: %d calls, note %q", calls.Load(), note)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the cooldown outlived an answer: %v", err)
	}
	// Any failure starts one; cooldown: 0 asks at every search.
	mode.Store(httpFail)
	if _, note := timedFused(t, b, "freeze balances"); !strings.HasPrefix(note, "embeddings provider answered HTTP 503; skipped until ") {
		t.Errorf("HTTP failure: %q", note)
	}
	os.WriteFile(filepath.Join(b.Root, "bf.yaml"), []byte("version: 8\nname: acme\nembeddings:\n  url: "+s.URL+"/v1/embeddings\n  model: fake-model\n  cooldown: 0\n"), 0o644)
	b, err = brain.Open(b.Root)
	if err != nil {
		t.Fatal(err)
	}
	calls.Store(0)
	for range 2 {
		if _, note := timedFused(t, b, "freeze balances"); note != "embeddings provider answered HTTP 503; searched with lexical, graph and recency" {
			t.Errorf("without a cooldown: %q", note)
		}
	}
	if calls.Load() != 2 {
		t.Errorf("without a cooldown the provider was asked %d times, want 2", calls.Load())
	}
}

// A provider whose vectors change length fails visibly, naming itself and the lengths:
// at search, and at a build or update, which stores nothing.
func TestDimensions(t *testing.T) {
	var mode, calls atomic.Int32
	s := switchable(t, &mode, &calls)
	b := writeBrain(t, "embeddings:\n  url: "+s.URL+"/v1/embeddings\n  model: fake-model\n")

	mode.Store(mixed)
	_, err := Embed(context.Background(), b)
	want := "embeddings provider fake-model returned vectors of mixed dimensions (32 dimensions for 1 texts, 64 dimensions for 2 texts); no vector was stored: check the provider's model"
	if err == nil || err.Error() != want {
		t.Fatalf("mixed build: %v, want %q", err, want)
	}
	if _, note := timedFused(t, b, "freeze balances"); !strings.HasPrefix(note, "no chunk is embedded yet (3 waiting)") {
		t.Errorf("after the refused build: %q", note)
	}

	mode.Store(answer)
	if _, err := Embed(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	mode.Store(short)
	if _, note := timedFused(t, b, "freeze balances"); note != "embeddings provider fake-model returned a query vector of 32 dimensions, but the stored vectors have 64: the provider's model changed; run bf build --embed; searched with lexical, graph and recency" {
		t.Errorf("short query vector: %q", note)
	}
	os.WriteFile(filepath.Join(b.Root, "concepts", "snapshot.md"), []byte("# Snapshot\n\nNightly snapshot of balances.\n"), 0o644)
	if _, err := Embed(context.Background(), b); err == nil || err.Error() != "embeddings provider fake-model returned vectors of 32 dimensions, but the stored vectors have 64: the provider's model changed; run bf build --embed" {
		t.Errorf("short update: %v", err)
	}
}
