package vector

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fuse"
	"github.com/bfgo/bf/libbf/search"
)

// TestMain lets the test binary stand in for an embeddings command: run with the
// argument fake-embed, it reads {"text"} lines and prints {"embedding"} lines.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "fake-embed" {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var in struct{ Text string }
			if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
				os.Exit(3)
			}
			b, _ := json.Marshal(map[string]any{"embedding": fake(in.Text)})
			fmt.Println(string(b))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fake is a deterministic bag-of-words vector: each lower-case word adds 1 to one of 64
// dimensions. Texts sharing words point the same way.
func fake(text string) []float32 {
	v := make([]float32, 64)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%64]++
	}
	return v
}

// fakeServer is an OpenAI-compatible embeddings endpoint on 127.0.0.1 counting texts.
func fakeServer(t *testing.T, texts *int) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if r.URL.Path != "/v1/embeddings" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "fake-model" ||
			r.Header.Get("Authorization") != "Bearer sk-test-key" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		*texts += len(req.Input)
		// Answer in reverse order: index says which text each vector belongs to.
		var data []datum
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, datum{i, fake(req.Input[i])})
		}
		writeData(w, data)
	}))
	t.Cleanup(s.Close)
	return s
}

var notes = map[string]string{
	"projects/ledger.md":  "---\ntype: project\nupdated: 2026-10-18\n---\n# Ledger migration\n\nMove invoices to the new ledger.\n\n## Rollback\n\nRestore the snapshot taken before the switch.\n",
	"concepts/cutover.md": "---\ntype: concept\nupdated: 2026-09-01\n---\n# Cutover runbook\n\nFreeze writes, copy balances, compare totals.\n",
}

// writeBrain is the test brain declaring embeddings, trusted on a machine of its own.
func writeBrain(t *testing.T, embeddings string) *brain.Brain {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	b := untrustedBrain(t, embeddings)
	if err := brain.System().Trust(b.Root); err != nil {
		t.Fatal(err)
	}
	return b
}

// untrustedBrain is the test brain declaring embeddings, trusted nowhere.
func untrustedBrain(t *testing.T, embeddings string) *brain.Brain {
	t.Helper()
	return brainfix.New(t, brainfix.Spec{Name: "acme", Config: "version: 8\nname: acme\n" + embeddings, Notes: notes}).Open()
}

func fused(t *testing.T, b *brain.Brain, query string) *search.Reply {
	t.Helper()
	out, err := fuse.Run(context.Background(), fuse.Request{
		Search: search.Request{Query: query, Brains: []*brain.Brain{b}, Now: time.Date(2026, 10, 20, 12, 0, 0, 0, time.UTC)},
		Dense:  Dense,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func denseRank(out *search.Reply) map[string]int {
	got := map[string]int{}
	for _, it := range out.Items {
		for _, c := range it.Explain.Strategies {
			if c.Name == fuse.Dense {
				got[it.Ref] = c.Rank
			}
		}
	}
	return got
}

func TestServerProvider(t *testing.T) {
	t.Setenv("BF_TEST_EMBED_KEY", "sk-test-key")
	var texts int
	s := fakeServer(t, &texts)
	b := writeBrain(t, "embeddings:\n  url: "+s.URL+"/v1/embeddings\n  model: fake-model\n  key_env: BF_TEST_EMBED_KEY\n  batch: 2\n")

	// Before any vector: fused search says dense waits and answers with the others.
	out := fused(t, b, "freeze balances")
	if !strings.HasPrefix(out.Fused.Unavailable[fuse.Dense], "no chunk is embedded yet (3 waiting)") {
		t.Errorf("unavailable = %v", out.Fused.Unavailable)
	}

	rep, err := Embed(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if rep != (Report{Embedded: 3, Chunks: 3}) || texts != 3 {
		t.Fatalf("report %+v, %d texts sent", rep, texts)
	}
	// Nothing left: a second pass sends nothing.
	if rep, err := Embed(context.Background(), b); err != nil || rep.Embedded != 0 {
		t.Fatalf("second pass: %+v %v", rep, err)
	}

	// "snapshot switch" holds no word of the cutover note and ranks the ledger note's
	// rollback chunk first; the query is the only call on the search path.
	texts = 0
	out = fused(t, b, "balances totals")
	if out.Fused.Unavailable != nil {
		t.Errorf("unavailable = %v", out.Fused.Unavailable)
	}
	if diff := cmp.Diff(map[string]int{"concepts/cutover.md": 1, "projects/ledger.md": 2}, denseRank(out)); diff != "" {
		t.Errorf("dense ranks (-want +got):\n%s", diff)
	}
	if texts != 1 {
		t.Errorf("search sent %d texts, want the query only", texts)
	}

	// A new note is found by its words at once; dense catches up at the next pass.
	os.WriteFile(filepath.Join(b.Root, "concepts", "snapshot.md"), []byte("# Snapshot\n\nNightly snapshot of balances.\n"), 0o644)
	out = fused(t, b, "nightly snapshot")
	if !slices.Contains(refsOf(out), "concepts/snapshot.md") ||
		out.Fused.Unavailable[fuse.Dense] != "1 of 4 chunks are not embedded yet; run bf build --embed or bf update" {
		t.Errorf("catch-up: %+v %v", refsOf(out), out.Fused.Unavailable)
	}
	if rep, err := Embed(context.Background(), b); err != nil || rep.Embedded != 1 {
		t.Fatalf("catch-up pass: %+v %v", rep, err)
	}
	if out = fused(t, b, "nightly snapshot"); out.Fused.Unavailable != nil || denseRank(out)["concepts/snapshot.md"] != 1 {
		t.Errorf("after catch-up: %v %v", denseRank(out), out.Fused.Unavailable)
	}

	// A failing provider leaves fused search on the other three strategies.
	s.Close()
	out = fused(t, b, "nightly snapshot")
	if msg := out.Fused.Unavailable[fuse.Dense]; !strings.HasPrefix(msg, "embeddings provider unreachable") || strings.Contains(msg, s.URL) {
		t.Errorf("unreachable: %q", msg)
	}
}

func TestCommandProvider(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
	b := writeBrain(t, fmt.Sprintf("embeddings:\n  command: [%q, fake-embed]\n", filepath.Base(exe)))
	rep, err := Embed(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 3 {
		t.Fatalf("report %+v", rep)
	}
	out := fused(t, b, "restore snapshot")
	if denseRank(out)["projects/ledger.md#rollback"] != 1 || out.Fused.Unavailable != nil {
		t.Errorf("dense ranks %v, unavailable %v", denseRank(out), out.Fused.Unavailable)
	}
}

func TestNoProvider(t *testing.T) {
	b := writeBrain(t, "")
	if rep, err := Embed(context.Background(), b); err != nil || rep != (Report{}) {
		t.Fatalf("%+v %v", rep, err)
	}
	out := fused(t, b, "ledger")
	if out.Fused.Unavailable[fuse.Dense] != fuse.NoProvider {
		t.Errorf("unavailable = %v", out.Fused.Unavailable)
	}
}

func TestEncode(t *testing.T) {
	v, ok := decodeEncoded(Encode([]float32{3, 4}))
	if !ok {
		t.Fatal("Encode wrote no vector")
	}
	if got := dot32(v, []float32{0.6, 0.8}); got < 0.9999 || got > 1.0001 {
		t.Errorf("dot = %v", got)
	}
	if Encode([]float32{0, 0}) != nil {
		t.Error("a zero vector encoded")
	}
}

func refsOf(out *search.Reply) []string {
	var r []string
	for _, it := range out.Items {
		r = append(r, it.Ref)
	}
	return r
}

// A brain trusted nowhere never calls its provider: bf build --embed is refused and fused
// search runs without the dense strategy, saying why.
func TestUntrustedProvider(t *testing.T) {
	t.Setenv("BF_TEST_EMBED_KEY", "sk-test-key")
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var texts int
	s := fakeServer(t, &texts)
	b := untrustedBrain(t, "embeddings:\n  url: "+s.URL+"/v1/embeddings\n  model: fake-model\n  key_env: BF_TEST_EMBED_KEY\n")
	if _, err := Embed(context.Background(), b); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("Embed: got %v, want ErrUntrusted", err)
	}
	out := fused(t, b, "nightly snapshot")
	want := ErrUntrusted.Error() + "; searched with lexical, graph and recency"
	if got := out.Fused.Unavailable[fuse.Dense]; got != want {
		t.Errorf("unavailable: %q, want %q", got, want)
	}
	if texts != 0 {
		t.Errorf("the provider received %d texts", texts)
	}
}

// A vector store holding a value bf did not write is discarded: fused search runs on the
// other strategies and says so, and the next pass computes every vector again.
func TestDamagedStore(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(exe)+string(os.PathListSeparator)+os.Getenv("PATH"))
	b := writeBrain(t, fmt.Sprintf("embeddings:\n  command: [%q, fake-embed]\n", filepath.Base(exe)))
	ctx := context.Background()
	if _, err := Embed(ctx, b); err != nil {
		t.Fatal(err)
	}
	st, err := cache.OpenVectors(ctx, b.Root)
	if err != nil {
		t.Fatal(err)
	}
	// Three times a unit vector: finite, but not what Encode writes.
	three := make([]byte, 4)
	binary.LittleEndian.PutUint32(three, math.Float32bits(3))
	if err := st.Put(ctx, keyOf(b.Config.Embeddings), map[string][]byte{strings.Repeat("0", 64): three}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	os.Remove(filepath.Join(b.Root, cache.Dir, scanFile))
	out := fused(t, b, "restore snapshot")
	want := cache.ErrVectorsDamaged.Error() + "; run bf build --embed; searched with lexical, graph and recency"
	if got := out.Fused.Unavailable[fuse.Dense]; got != want {
		t.Errorf("unavailable: %q, want %q", got, want)
	}
	if rep, err := Embed(ctx, b); err != nil || rep != (Report{Embedded: 3, Chunks: 3}) {
		t.Errorf("after the damage: %+v %v", rep, err)
	}
}
