package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// unitBytes encodes a vector as the store keeps it (the caller passes a unit vector).
func unitBytes(v ...float32) []byte {
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(x))
	}
	return out
}

var (
	keyA = VectorKey{Provider: `["embed","--fast"]`}
	keyB = VectorKey{Provider: "http://127.0.0.1:9/v1/embeddings", Model: "m"}
)

// The store keeps vectors by provider, model and text across opens, counts the batches
// that added any, and drops only the texts no chunk uses.
func TestVectorStore(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	st, err := OpenVectors(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, keyA, map[string][]byte{"h1": unitBytes(1, 0), "h2": unitBytes(0, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, keyB, map[string][]byte{"h1": unitBytes(0.6, 0.8)}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if fi, err := os.Stat(filepath.Join(root, Dir, vectorsFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store file: %v %v, want mode 0600", fi, err)
	}
	db, err := sql.Open("sqlite", dsn(filepath.Join(root, Dir, vectorsFile), "mode=ro"))
	if err != nil {
		t.Fatal(err)
	}
	var pageSize int
	var journal string
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil || pageSize != vectorsPageSize {
		t.Errorf("page size %d (%v), want %d", pageSize, err, vectorsPageSize)
	}
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&journal); err != nil || journal != "wal" {
		t.Errorf("journal mode %q (%v), want wal", journal, err)
	}
	db.Close()

	st, err = OpenVectors(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	set, err := st.Load(ctx, keyA, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := VectorSet{Changes: 2, Vectors: map[string][]float32{"h1": {1, 0}, "h2": {0, 1}}}
	if diff := cmp.Diff(want, set); diff != "" {
		t.Errorf("load (-want +got):\n%s", diff)
	}
	if only, err := st.Load(ctx, keyA, []string{"h2", "absent"}); err != nil ||
		!cmp.Equal(only, VectorSet{Changes: 2, Vectors: map[string][]float32{"h2": {0, 1}}}) {
		t.Errorf("load of h2 and an absent hash: %v %v", only, err)
	}
	if hs, err := st.Hashes(ctx, keyB); err != nil || !cmp.Equal(hs, map[string]bool{"h1": true}) {
		t.Errorf("hashes of B: %v %v", hs, err)
	}
	if n, err := st.Keep(ctx, map[string]bool{"h1": true}); err != nil || n != 1 {
		t.Fatalf("keep dropped %d texts (%v), want 1", n, err)
	}
	if hs, err := st.Hashes(ctx, keyA); err != nil || !cmp.Equal(hs, map[string]bool{"h1": true}) {
		t.Errorf("hashes of A after keep: %v %v", hs, err)
	}
}

// A file that is not a store of this version, or holds a vector bf did not write, is
// discarded and never read.
func TestVectorStoreDiscardsForeignAndDamaged(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, file string)
	}{
		{"not a database", func(t *testing.T, file string) {
			os.Remove(file + "-wal")
			os.Remove(file + "-shm")
			if err := os.WriteFile(file, []byte("not a database, whatever its name says, and long enough to be read"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"another version", func(t *testing.T, file string) { execOn(t, file, "PRAGMA user_version = 99") }},
		{"another layout", func(t *testing.T, file string) { execOn(t, file, "CREATE TABLE extra(x)") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			st, err := OpenVectors(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Put(ctx, keyA, map[string][]byte{"h1": unitBytes(1, 0)}); err != nil {
				t.Fatal(err)
			}
			st.Close()
			tc.spoil(t, filepath.Join(root, Dir, vectorsFile))
			st, err = OpenVectors(ctx, root)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if hs, err := st.Hashes(ctx, keyA); err != nil || len(hs) != 0 {
				t.Errorf("a spoiled store was read: %v %v", hs, err)
			}
		})
	}

	// A stored value that is not a unit vector: Load refuses it and the store starts over.
	root := t.TempDir()
	st, err := OpenVectors(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, keyA, map[string][]byte{"h1": unitBytes(1, 0), "h2": unitBytes(3, 4)}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(ctx, keyA, nil); !errors.Is(err, ErrVectorsDamaged) {
		t.Fatalf("load of a damaged vector: %v", err)
	}
	st.Close()
	st, err = OpenVectors(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if set, err := st.Load(ctx, keyA, nil); err != nil || len(set.Vectors) != 0 {
		t.Errorf("after damage: %v %v", set, err)
	}
}

// execOn runs one statement on a database file.
func execOn(t *testing.T, file, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", dsn(file, "mode=rw"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

// A build draws a new generation; a refresh that changes items counts one change; a full
// build drops from the store the vectors no chunk of the brain uses.
func TestChunkStateAndBuildKeepsUsedVectors(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, map[string]string{"concepts/a.md": "# A\n\nAlpha.\n"})
	f.write("bf.yaml", testConfig+"embeddings:\n  command: [embed]\n")
	f.build()
	c := f.open()
	first, err := ReadChunkState(ctx, c.DB())
	if err != nil {
		t.Fatal(err)
	}
	texts, err := c.ChunkTexts(ctx)
	c.Close()
	if err != nil || len(texts) != 1 {
		t.Fatalf("chunk texts %v %v", texts, err)
	}
	st, err := OpenVectors(ctx, f.Root)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, keyA, map[string][]byte{texts[0].Hash: unitBytes(1, 0), "gone": unitBytes(0, 1)}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	f.write("concepts/b.md", "# B\n\nBravo.\n")
	c = f.open()
	second, err := ReadChunkState(ctx, c.DB())
	c.Close()
	if err != nil || second != (ChunkState{first.Generation, 1}) {
		t.Errorf("after a refresh: %+v %v, want %+v", second, err, ChunkState{first.Generation, 1})
	}

	f.build()
	c = f.open()
	third, err := ReadChunkState(ctx, c.DB())
	c.Close()
	if err != nil || third.Generation == first.Generation || third.Changes != 0 {
		t.Errorf("after a build: %+v %v (first %+v)", third, err, first)
	}
	st, err = OpenVectors(ctx, f.Root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if hs, err := st.Hashes(ctx, keyA); err != nil || !cmp.Equal(hs, map[string]bool{texts[0].Hash: true}) {
		t.Errorf("after a build the store holds %v (%v), want only the used text", hs, err)
	}

	// Without a provider a generation has no chunks: a build then keeps every vector, for
	// the provider's return.
	f.write("bf.yaml", testConfig)
	f.build()
	if hs, err := st.Hashes(ctx, keyA); err != nil || !cmp.Equal(hs, map[string]bool{texts[0].Hash: true}) {
		t.Errorf("after a build without a provider the store holds %v (%v), want the text kept", hs, err)
	}
}
