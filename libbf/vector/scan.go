package vector

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/fuse"
)

// The scan file, .bf/vectors.scan, is the dense strategy's copy of one brain's vectors laid
// out for a search to read in one piece: every embedded chunk as its item's id and its unit
// vector, sorted by item, the vectors as one contiguous run of float32 values. Reading the
// vectors row by row from SQLite cost about 3 µs a chunk (0.3 s for 100,000 chunks) before
// any arithmetic; a search maps this file instead and only multiplies. Its stamp names the
// provider, the generation's chunk state and the store's change count it was made from:
// a search finding another stamp makes the file again from the generation and the store.
const scanFile = "vectors.scan"

// Layout: header, then rows int64 item ids, then rows×dims float32 values, all little-endian.
const (
	scanMagic  = "bfscan01"
	headerSize = 80 // magic 8, dims 4, pad 4, rows 8, chunks 8, missing 8, stamp 32, pad 8
)

// scan is a brain's embedded chunks, ready to compare with a query.
type scan struct {
	dims int
	// items holds each row's item id, rows of one item together.
	items []int64
	// vecs holds the rows' unit vectors, dims values each.
	vecs []float32
	// chunks counts the generation's chunks and missing those without a vector.
	chunks, missing int
	// release unmaps the file (nil for a scan in memory).
	release func()
}

// close releases the scan's file mapping.
func (s *scan) close() {
	if s.release != nil {
		s.release()
	}
}

// stampOf names what a scan file is a copy of.
func stampOf(key cache.VectorKey, chunks cache.ChunkState, changes int64) [32]byte {
	h := sha256.New()
	for _, part := range []string{key.Provider, key.Model, chunks.Generation} {
		binary.Write(h, binary.LittleEndian, uint64(len(part)))
		h.Write([]byte(part))
	}
	binary.Write(h, binary.LittleEndian, chunks.Changes)
	binary.Write(h, binary.LittleEndian, changes)
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// loadScan returns the brain's scan for key: the scan file when its stamp is current, else
// one made from the generation db reads and the vector store (and written for the next
// search, when .bf can hold it).
func loadScan(ctx context.Context, db *sql.Tx, root string, key cache.VectorKey) (*scan, error) {
	state, err := cache.ReadChunkState(ctx, db)
	if err != nil {
		return nil, err
	}
	st, err := cache.OpenVectorsIfAny(ctx, root)
	if err != nil {
		return nil, err
	}
	if st == nil {
		// Nothing was ever embedded here: every chunk waits.
		var n int
		err := db.QueryRowContext(ctx, `SELECT count(*) FROM chunks`).Scan(&n)
		return &scan{chunks: n, missing: n}, err
	}
	defer st.Close()
	changes, err := st.Changes(ctx)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(root, cache.Dir, scanFile)
	stamp := stampOf(key, state, changes)
	if s := openScan(file, stamp); s != nil {
		return s, nil
	}
	set, err := st.Load(ctx, key)
	if err != nil {
		return nil, err
	}
	raw, err := buildScan(ctx, db, set, stampOf(key, state, set.Changes))
	if err != nil {
		return nil, err
	}
	// A search that cannot keep the file (a read-only brain) still has the scan.
	durable.WriteFile(file, raw, 0o600)
	return decodeScan(raw, nil), nil
}

// buildScan lays out the generation's chunks with the vectors of set: the bytes of a
// scan file.
func buildScan(ctx context.Context, db *sql.Tx, set cache.VectorSet, stamp [32]byte) ([]byte, error) {
	type row struct {
		item int64
		vec  []float32
	}
	var rows []row
	chunks, dims := 0, 0
	found, err := db.QueryContext(ctx, `SELECT item, hash FROM chunks ORDER BY item, id`)
	err = cache.EachRow(found, err, func(r *sql.Rows) error {
		var item int64
		var hash string
		if err := r.Scan(&item, &hash); err != nil {
			return err
		}
		chunks++
		v := set.Vectors[hash]
		if v == nil {
			return nil
		}
		if dims == 0 {
			dims = len(v)
		}
		if len(v) == dims {
			rows = append(rows, row{item, v})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	raw := make([]byte, headerSize+len(rows)*(8+4*dims))
	copy(raw, scanMagic)
	binary.LittleEndian.PutUint32(raw[8:], uint32(dims))
	binary.LittleEndian.PutUint64(raw[16:], uint64(len(rows)))
	binary.LittleEndian.PutUint64(raw[24:], uint64(chunks))
	binary.LittleEndian.PutUint64(raw[32:], uint64(chunks-len(rows)))
	copy(raw[40:72], stamp[:])
	items, vecs := raw[headerSize:], raw[headerSize+8*len(rows):]
	for i, r := range rows {
		binary.LittleEndian.PutUint64(items[8*i:], uint64(r.item))
		for j, x := range r.vec {
			binary.LittleEndian.PutUint32(vecs[4*(i*dims+j):], math.Float32bits(x))
		}
	}
	return raw, nil
}

// decodeScan reads the scan file's bytes, or returns nil when they are not one. On a
// little-endian machine the rows are the bytes themselves, no copy made.
func decodeScan(raw []byte, release func()) *scan {
	if len(raw) < headerSize || string(raw[:8]) != scanMagic {
		return nil
	}
	dims := int(binary.LittleEndian.Uint32(raw[8:]))
	rows := binary.LittleEndian.Uint64(raw[16:])
	s := &scan{dims: dims, chunks: int(binary.LittleEndian.Uint64(raw[24:])), missing: int(binary.LittleEndian.Uint64(raw[32:])), release: release}
	if rows > uint64(len(raw)) || uint64(len(raw)) != headerSize+rows*(8+4*uint64(dims)) || (rows > 0 && dims == 0) {
		return nil
	}
	n := int(rows)
	if n == 0 {
		return s
	}
	items, vecs := raw[headerSize:headerSize+8*n], raw[headerSize+8*n:]
	if littleEndian {
		s.items = unsafe.Slice((*int64)(unsafe.Pointer(&items[0])), n)
		s.vecs = unsafe.Slice((*float32)(unsafe.Pointer(&vecs[0])), n*dims)
		return s
	}
	s.items = make([]int64, n)
	for i := range s.items {
		s.items[i] = int64(binary.LittleEndian.Uint64(items[8*i:]))
	}
	s.vecs = make([]float32, n*dims)
	for i := range s.vecs {
		s.vecs[i] = math.Float32frombits(binary.LittleEndian.Uint32(vecs[4*i:]))
	}
	return s
}

// littleEndian is whether this machine stores numbers as the scan file does.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// openScan maps the scan file when it holds stamp, else returns nil.
func openScan(file string, stamp [32]byte) *scan {
	raw, release, err := mapFile(file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			os.Remove(file)
		}
		return nil
	}
	if len(raw) < headerSize || [32]byte(raw[40:72]) != stamp {
		release()
		return nil
	}
	s := decodeScan(raw, release)
	if s == nil {
		release()
	}
	return s
}

// parallelRows is the number of rows below which a scan runs on one goroutine.
const parallelRows = 4096

// top returns the depth items whose best chunk is closest to the unit vector q, best
// first, ties by id: the cosine of each chunk computed as today's exact scan did (a float32
// sum in dimension order), each item scored by its best chunk. The rows are cut into one
// part per processor at item boundaries.
func (s *scan) top(q []float32, depth int) []fuse.Scored {
	if depth <= 0 || len(q) != s.dims || len(s.items) == 0 {
		return nil
	}
	parts := min(runtime.GOMAXPROCS(0), max(1, len(s.items)/parallelRows))
	bounds := make([]int, 0, parts+1)
	bounds = append(bounds, 0)
	for p := 1; p < parts; p++ {
		i := max(len(s.items)*p/parts, bounds[len(bounds)-1])
		for i < len(s.items) && i > 0 && s.items[i] == s.items[i-1] {
			i++
		}
		bounds = append(bounds, i)
	}
	bounds = append(bounds, len(s.items))
	results := make([]worst, len(bounds)-1)
	var wg sync.WaitGroup
	for p := range results {
		wg.Go(func() { results[p] = s.topOf(q, bounds[p], bounds[p+1], depth) })
	}
	wg.Wait()
	var out []fuse.Scored
	for _, r := range results {
		out = append(out, r...)
	}
	slices.SortFunc(out, better)
	return out[:min(depth, len(out))]
}

// better orders scored items best first: higher score, then lower id.
func better(a, b fuse.Scored) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// worst is a heap of at most depth items whose root is the worst of them.
type worst []fuse.Scored

func (h worst) Len() int           { return len(h) }
func (h worst) Less(i, j int) bool { return better(h[i], h[j]) > 0 }
func (h worst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *worst) Push(x any)        { *h = append(*h, x.(fuse.Scored)) }
func (h *worst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// offer keeps it when it is among the depth best seen.
func (h *worst) offer(it fuse.Scored, depth int) {
	if len(*h) < depth {
		heap.Push(h, it)
	} else if better(it, (*h)[0]) < 0 {
		(*h)[0] = it
		heap.Fix(h, 0)
	}
}

// topOf scores rows [from, to), which hold whole items, and keeps the depth best items.
func (s *scan) topOf(q []float32, from, to, depth int) worst {
	h := make(worst, 0, depth)
	d := s.dims
	cur, best := int64(0), float32(0)
	have := false
	take := func(item int64, score float32) {
		if have && item == cur {
			best = max(best, score)
			return
		}
		if have {
			h.offer(fuse.Scored{ID: cur, Score: float64(best)}, depth)
		}
		cur, best, have = item, score, true
	}
	i := from
	for ; i+4 <= to; i += 4 {
		s0, s1, s2, s3 := dot4(s.vecs[i*d:(i+1)*d], s.vecs[(i+1)*d:(i+2)*d], s.vecs[(i+2)*d:(i+3)*d], s.vecs[(i+3)*d:(i+4)*d], q)
		take(s.items[i], s0)
		take(s.items[i+1], s1)
		take(s.items[i+2], s2)
		take(s.items[i+3], s3)
	}
	for ; i < to; i++ {
		take(s.items[i], dot32(s.vecs[i*d:(i+1)*d], q))
	}
	if have {
		h.offer(fuse.Scored{ID: cur, Score: float64(best)}, depth)
	}
	return h
}

// dot32 is the inner product of two vectors of q's length, summed in dimension order in
// float32, as the scan always has.
func dot32(a, q []float32) float32 {
	a = a[:len(q)]
	var s float32
	for i, x := range q {
		s += a[i] * x
	}
	return s
}

// dot4 is dot32 of four vectors at once: four independent sums, each in dimension order,
// so the processor overlaps them and each result is exactly dot32's.
func dot4(a0, a1, a2, a3, q []float32) (s0, s1, s2, s3 float32) {
	n := len(q)
	a0, a1, a2, a3 = a0[:n], a1[:n], a2[:n], a3[:n]
	for i, x := range q {
		s0 += a0[i] * x
		s1 += a1[i] * x
		s2 += a2[i] * x
		s3 += a3[i] * x
	}
	return
}
