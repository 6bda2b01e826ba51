package vector

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/bfgo/bf/libbf/fuse"
)

// The scan file, .bf/vectors.scan, is the dense strategy's copy of one brain's vectors laid
// out for a search to read in one piece: every embedded chunk as its item's id, its text's
// SHA-256 and its unit vector, sorted by item, the vectors as one contiguous run of
// float32 values. Reading the vectors row by row from SQLite cost about 3 µs a chunk (0.3 s
// for 100,000 chunks) before any arithmetic; a search maps this file instead and only
// multiplies. Its stamp names the provider, the generation's chunk state and the store's
// change count it was made from: a search finding another stamp makes the file again from
// the generation's chunks, taking the vectors of unchanged texts from the old file and
// only the others from the store.
const scanFile = "vectors.scan"

// Layout: header, then rows int64 item ids, rows 32-byte text digests, then rows×dims
// float32 values, all little-endian.
const (
	scanMagic  = "bfscan02"
	headerSize = 112 // magic 8, dims 4, pad 4, rows 8, chunks 8, missing 8, stamp 32, key 32, pad 8
)

// maxDims bounds the dimensions a scan file may claim, so its size check cannot overflow.
const maxDims = 1 << 16

// scan is a brain's embedded chunks, ready to compare with a query.
type scan struct {
	dims int
	// items holds each row's item id, rows of one item together.
	items []int64
	// digests holds each row's text digest, 32 bytes a row.
	digests []byte
	// vecs holds the rows' unit vectors, dims values each.
	vecs []float32
	// chunks counts the generation's chunks and missing those without a vector.
	chunks, missing int
	// stamp and key are what the scan was made from (stampOf) and for (keyDigest).
	stamp, key [32]byte
	// release unmaps the file (nil for a scan in memory).
	release func()
}

// close releases the scan's file mapping.
func (s *scan) close() {
	if s != nil && s.release != nil {
		s.release()
	}
}

// keyDigest names a provider and model.
func keyDigest(key cache.VectorKey) [32]byte {
	return sha256.Sum256([]byte(key.Provider + "\x00" + key.Model))
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
// one made from the generation db reads, the previous file and the vector store (and
// written for the next search, when .bf can hold it).
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
	old := openScan(file, keyDigest(key))
	if old != nil && old.stamp == stampOf(key, state, changes) {
		return old, nil
	}
	defer old.close()
	chunks, err := readChunks(ctx, db)
	if err != nil {
		return nil, err
	}
	// The old file's vectors are taken only for texts the store still holds: a store
	// discarded or pruned since must not live on in the scan.
	have, err := st.Hashes(ctx, key)
	if err != nil {
		return nil, err
	}
	kept := old.byDigest()
	for _, c := range chunks {
		if !have[c.hash] {
			delete(kept, c.digest)
		}
	}
	var need []string
	for _, c := range chunks {
		if _, ok := kept[c.digest]; !ok {
			need = append(need, c.hash)
		}
	}
	if old == nil || len(need) > len(chunks)/4 {
		need = nil // most texts are new: one read of every vector is cheaper
	}
	set, err := st.Load(ctx, key, need)
	if err != nil {
		return nil, err
	}
	raw := layOut(chunks, func(c chunkRef) []float32 {
		if row, ok := kept[c.digest]; ok {
			return old.vecs[row*old.dims : (row+1)*old.dims]
		}
		return set.Vectors[c.hash]
	}, stampOf(key, state, set.Changes), keyDigest(key))
	// A search that cannot keep the file (a read-only brain) still has the scan. The file
	// is derived: a crash leaves the old one or one its size and stamp check.
	s := decodeScan(raw, nil)
	if s == nil {
		return nil, fmt.Errorf("the embeddings provider's vectors have more than %d dimensions; declare a model with fewer", maxDims)
	}
	writeScan(file, raw)
	return s, nil
}

// chunkRef is one chunk of a generation.
type chunkRef struct {
	item   int64
	hash   string
	digest [32]byte
}

// readChunks lists the generation's chunks, by item.
func readChunks(ctx context.Context, db *sql.Tx) ([]chunkRef, error) {
	rows, err := db.QueryContext(ctx, `SELECT item, hash FROM chunks ORDER BY item, id`)
	return cache.ReadRows(rows, err, func(r *sql.Rows) (chunkRef, error) {
		var c chunkRef
		if err := r.Scan(&c.item, &c.hash); err != nil {
			return c, err
		}
		if _, err := hex.Decode(c.digest[:], []byte(c.hash)); err != nil || len(c.hash) != 64 {
			return c, fmt.Errorf("chunks.hash %q is not a SHA-256 in hex; run bf build", c.hash)
		}
		return c, nil
	})
}

// byDigest maps each text digest of the scan to a row holding its vector.
func (s *scan) byDigest() map[[32]byte]int {
	out := map[[32]byte]int{}
	if s == nil {
		return out
	}
	for i := range s.items {
		out[[32]byte(s.digests[32*i:32*(i+1)])] = i
	}
	return out
}

// layOut makes the bytes of a scan file holding chunks with the vectors vectorOf gives
// (nil: none yet). Vectors of another length than the first are left out as missing.
func layOut(chunks []chunkRef, vectorOf func(chunkRef) []float32, stamp, key [32]byte) []byte {
	type row struct {
		c   chunkRef
		vec []float32
	}
	var rows []row
	dims := 0
	for _, c := range chunks {
		v := vectorOf(c)
		if v == nil {
			continue
		}
		if dims == 0 {
			dims = len(v)
		}
		if len(v) == dims {
			rows = append(rows, row{c, v})
		}
	}
	n := len(rows)
	raw := make([]byte, headerSize+n*(8+32+4*dims))
	copy(raw, scanMagic)
	binary.LittleEndian.PutUint32(raw[8:], uint32(dims))
	binary.LittleEndian.PutUint64(raw[16:], uint64(n))
	binary.LittleEndian.PutUint64(raw[24:], uint64(len(chunks)))
	binary.LittleEndian.PutUint64(raw[32:], uint64(len(chunks)-n))
	copy(raw[40:72], stamp[:])
	copy(raw[72:104], key[:])
	items, digests, vecs := raw[headerSize:], raw[headerSize+8*n:], raw[headerSize+40*n:]
	for i, r := range rows {
		binary.LittleEndian.PutUint64(items[8*i:], uint64(r.c.item))
		copy(digests[32*i:], r.c.digest[:])
		for j, x := range r.vec {
			binary.LittleEndian.PutUint32(vecs[4*(i*dims+j):], math.Float32bits(x))
		}
	}
	return raw
}

// writeScan replaces the scan file with raw: a temporary file renamed over it, so a search
// maps either the old file or the new one whole.
func writeScan(file string, raw []byte) {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+scanFile+".*.tmp")
	if err != nil {
		return
	}
	_, err = tmp.Write(raw)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}

// decodeScan reads the scan file's bytes, or returns nil when they are not one. On a
// little-endian machine the rows are the bytes themselves, no copy made.
func decodeScan(raw []byte, release func()) *scan {
	if len(raw) < headerSize || string(raw[:8]) != scanMagic {
		return nil
	}
	dims := int(binary.LittleEndian.Uint32(raw[8:]))
	rows := binary.LittleEndian.Uint64(raw[16:])
	s := &scan{dims: dims, chunks: int(binary.LittleEndian.Uint64(raw[24:])), missing: int(binary.LittleEndian.Uint64(raw[32:])),
		stamp: [32]byte(raw[40:72]), key: [32]byte(raw[72:104]), release: release}
	if dims > maxDims || rows > uint64(len(raw)) || uint64(len(raw)) != headerSize+rows*(8+32+4*uint64(dims)) || (rows > 0 && dims == 0) {
		return nil
	}
	n := int(rows)
	if n == 0 {
		return s
	}
	items, vecs := raw[headerSize:headerSize+8*n], raw[headerSize+40*n:]
	s.digests = raw[headerSize+8*n : headerSize+40*n]
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

// openScan maps the scan file when it is one made for key, else returns nil.
func openScan(file string, key [32]byte) *scan {
	raw, release, err := mapFile(file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			os.Remove(file)
		}
		return nil
	}
	s := decodeScan(raw, release)
	if s == nil || s.key != key {
		release()
		return nil
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
