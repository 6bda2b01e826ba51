package vector

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fuse"
)

// decodeEncoded reads what Encode wrote.
func decodeEncoded(enc []byte) ([]float32, bool) {
	if len(enc) == 0 || len(enc)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(enc)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(enc[4*i:]))
	}
	return v, true
}

// chunkRow is one row of a generation's chunks table with its encoded vector (nil: none).
type chunkRow struct {
	item int64
	hash string
	enc  []byte
}

// referenceTop is the dense ranking as bf computed it before the scan file: every chunk's
// encoded vector decoded value by value against q, summed in float32, the best score of
// each item kept in a map, then every item sorted by score and id and cut at depth.
func referenceTop(rows []chunkRow, q []float32, depth int) []fuse.Scored {
	best := map[int64]float64{}
	for _, r := range rows {
		if r.enc == nil || len(r.enc) != 4*len(q) {
			continue
		}
		var s float32
		for i := range q {
			s += math.Float32frombits(binary.LittleEndian.Uint32(r.enc[4*i:])) * q[i]
		}
		if old, ok := best[r.item]; !ok || float64(s) > old {
			best[r.item] = float64(s)
		}
	}
	out := make([]fuse.Scored, 0, len(best))
	for id, s := range best {
		out = append(out, fuse.Scored{ID: id, Score: s})
	}
	slices.SortFunc(out, func(a, b fuse.Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(out) > depth {
		out = out[:depth]
	}
	return out
}

// randomChunks makes n chunk rows of items holding 1 to 5 chunks each, with unit vectors
// of dims values; about one in ten has no vector, and one in twenty repeats an earlier
// row's text (so two items tie exactly).
func randomChunks(r *rand.Rand, n, dims int) ([]chunkRow, cache.VectorSet) {
	set := cache.VectorSet{Vectors: map[string][]float32{}}
	rows := make([]chunkRow, 0, n)
	item := int64(1)
	for len(rows) < n {
		for range 1 + r.IntN(5) {
			if len(rows) == n {
				break
			}
			row := chunkRow{item: item, hash: fmt.Sprintf("%064x", len(rows))}
			switch {
			case len(rows) > 0 && r.IntN(20) == 0:
				prev := rows[r.IntN(len(rows))]
				row.hash, row.enc = prev.hash, prev.enc
			case r.IntN(10) == 0:
			default:
				v := make([]float32, dims)
				for i := range v {
					v[i] = float32(r.NormFloat64())
				}
				row.enc = Encode(v)
				set.Vectors[row.hash], _ = decodeEncoded(row.enc)
			}
			rows = append(rows, row)
		}
		item += 1 + int64(r.IntN(3))
	}
	return rows, set
}

// chunksDB is an in-memory database holding rows as a generation's chunks table, at chunk
// state {g, 0}.
func chunksDB(t testing.TB, rows []chunkRow) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:chunks?mode=memory")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	for _, s := range []string{`CREATE TABLE chunks(id INTEGER PRIMARY KEY, item INTEGER NOT NULL, hash TEXT NOT NULL)`,
		`CREATE TABLE chunk_state(generation TEXT NOT NULL, changes INTEGER NOT NULL)`, `INSERT INTO chunk_state VALUES('g', 0)`} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	// Insert in a shuffled order: the scan must sort by item itself.
	order := rand.New(rand.NewPCG(7, 7)).Perm(len(rows))
	for _, i := range order {
		if _, err := db.Exec(`INSERT INTO chunks(id, item, hash) VALUES(?, ?, ?)`, i+1, rows[i].item, rows[i].hash); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// chunksTx is a transaction on chunksDB(rows).
func chunksTx(t testing.TB, rows []chunkRow) *sql.Tx {
	t.Helper()
	return readTx(t, chunksDB(t, rows))
}

// readTx is a transaction on db, rolled back at the end of the test.
func readTx(t testing.TB, db *sql.DB) *sql.Tx {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tx.Rollback() })
	return tx
}

// scanOf lays out rows with the vectors of set, as loadScan does.
func scanOf(t testing.TB, rows []chunkRow, set cache.VectorSet, stamp [32]byte) []byte {
	t.Helper()
	chunks, err := readChunks(context.Background(), chunksTx(t, rows))
	if err != nil {
		t.Fatal(err)
	}
	return layOut(chunks, func(c chunkRef) []float32 { return set.Vectors[c.hash] }, stamp, [32]byte{})
}

// The scan ranks exactly as the scan it replaced: the same ids with the same scores, in the
// same order, on random vectors, whatever the depth and the number of processors.
func TestScanMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ rows, dims int }{{1, 8}, {7, 3}, {5000, 64}, {20000, 48}} {
		rows, set := randomChunks(r, tc.rows, tc.dims)
		s := decodeScan(scanOf(t, rows, set, [32]byte{1}), nil)
		missing := 0
		for _, row := range rows {
			if row.enc == nil {
				missing++
			}
		}
		if s.chunks != tc.rows || s.missing != missing || s.dims != tc.dims && len(s.items) > 0 {
			t.Fatalf("%d rows: scan holds chunks %d, missing %d, dims %d; want %d, %d, %d", tc.rows, s.chunks, s.missing, s.dims, tc.rows, missing, tc.dims)
		}
		for _, procs := range []int{1, 2, 3} {
			old := runtime.GOMAXPROCS(procs)
			for range 5 {
				q := make([]float32, tc.dims)
				for i := range q {
					q[i] = float32(r.NormFloat64())
				}
				q = unit(q)
				for _, depth := range []int{1, 10, 200, tc.rows} {
					want := referenceTop(rows, q, depth)
					if diff := gocmp.Diff(want, s.top(q, depth)); diff != "" {
						t.Errorf("%d rows, %d procs, depth %d (-reference +scan):\n%s", tc.rows, procs, depth, diff)
					}
				}
			}
			runtime.GOMAXPROCS(old)
		}
	}
}

// A scan file is read back as written while it was made for the same provider; a file cut
// short is not read.
func TestScanFile(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rows, set := randomChunks(r, 300, 16)
	raw := scanOf(t, rows, set, [32]byte{9})
	file := filepath.Join(t.TempDir(), scanFile)
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openScan(file, [32]byte{})
	if s == nil {
		t.Fatal("the scan file was not read")
	}
	defer s.close()
	mem := decodeScan(raw, nil)
	if diff := gocmp.Diff([]any{mem.dims, mem.chunks, mem.missing, mem.stamp, mem.items, mem.digests, mem.vecs},
		[]any{s.dims, s.chunks, s.missing, s.stamp, s.items, s.digests, s.vecs}); diff != "" {
		t.Errorf("mapped scan differs (-built +mapped):\n%s", diff)
	}
	if openScan(file, [32]byte{8}) != nil {
		t.Error("a scan file made for another provider was read")
	}
	if err := os.WriteFile(file, raw[:len(raw)-4], 0o600); err != nil {
		t.Fatal(err)
	}
	if openScan(file, [32]byte{}) != nil {
		t.Error("a scan file cut short was read")
	}
}

// loadScan writes the scan file and serves it while nothing changed; after a change it
// takes the vectors of unchanged texts from the old file and only new ones from the store,
// and ranks as the reference does on the new chunks.
func TestLoadScanKeepsUnchangedVectors(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	key := cache.VectorKey{Provider: "test"}
	r := rand.New(rand.NewPCG(5, 6))
	rows, _ := randomChunks(r, 400, 8)
	// kept is a chunk other than the first with a vector and a text of its own.
	kept := slices.IndexFunc(rows, func(c chunkRow) bool {
		return c.enc != nil && c.hash != rows[0].hash && len(slices.DeleteFunc(slices.Clone(rows), func(o chunkRow) bool { return o.hash != c.hash })) == 1
	})
	st, err := cache.OpenVectors(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	put := func(rows []chunkRow) {
		t.Helper()
		batch := map[string][]byte{}
		for _, row := range rows {
			if row.enc != nil {
				batch[row.hash] = row.enc
			}
		}
		if err := st.Put(ctx, key, batch); err != nil {
			t.Fatal(err)
		}
	}
	put(rows)
	db := chunksDB(t, rows)
	q := unit([]float32{1, 2, 3, 4, 5, 6, 7, 8})
	check := func(label string, rows []chunkRow, wantMissing int) *scan {
		t.Helper()
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		s, err := loadScan(ctx, tx, root, key)
		tx.Rollback()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.close)
		if s.missing != wantMissing {
			t.Errorf("%s: %d chunks missing, want %d", label, s.missing, wantMissing)
		}
		if diff := gocmp.Diff(referenceTop(rows, q, 50), s.top(q, 50)); diff != "" {
			t.Errorf("%s (-reference +scan):\n%s", label, diff)
		}
		return s
	}
	missing := 0
	for _, row := range rows {
		if row.enc == nil {
			missing++
		}
	}
	if s := check("first", rows, missing); s.release != nil {
		t.Error("the first search read a scan file that was never written")
	}
	if s := check("again", rows, missing); s.release == nil {
		t.Error("an unchanged brain made its scan again instead of mapping the file")
	}

	// The first chunk gets a new text and vector; the store then loses the kept chunk's
	// vector: the new scan follows the store and counts it missing, though the old file
	// held it (a store discarded or pruned never lives on in the scan).
	changed := slices.Clone(rows)
	v := make([]float32, 8)
	v[0] = 1
	changed[0].hash, changed[0].enc = fmt.Sprintf("%064x", 999999), Encode(v)
	if _, err := db.Exec(`UPDATE chunks SET hash = ? WHERE hash = ? AND item = ?`, changed[0].hash, rows[0].hash, rows[0].item); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE chunk_state SET changes = changes + 1`); err != nil {
		t.Fatal(err)
	}
	put(changed[:1])
	if rows[0].enc == nil {
		missing--
	}
	used := map[string]bool{}
	for _, row := range changed {
		used[row.hash] = row.hash != rows[kept].hash
	}
	if n, err := st.Keep(ctx, used); err != nil || n == 0 {
		t.Fatalf("keep dropped %d texts (%v)", n, err)
	}
	if changed[kept].enc != nil {
		missing++
	}
	changed[kept].enc = nil
	check("after a change", changed, missing)
}
