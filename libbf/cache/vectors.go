package cache

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The vector store, .bf/vectors.sqlite, keeps the dense strategy's vectors outside the
// generations a rebuild discards: a vector is computed once per provider, model and
// chunk text, and a rebuild, a schema change or a failed embedding pass costs no call
// for a text the store already holds. It is derived data like the rest of .bf (deleting
// it costs only the calls that refill it), but unlike a generation it is never rebuilt
// from the brain's files, so it has its own schema version and durable commits.
const (
	// vectorsFile is the store's file name inside .bf.
	vectorsFile = "vectors.sqlite"
	// vectorsVersion is the store's layout, in PRAGMA user_version; a file with another
	// value, another application_id or another table layout is discarded, never read.
	vectorsVersion = 1
	// vectorsAppID marks a file as bf's vector store ("bfVS").
	vectorsAppID = 0x62665653
)

// vectorsDDL is the store's layout. state holds one row whose changes counts the
// transactions that added vectors, so a reader can tell that a copy it made is current.
// The vectors live in a rowid table, appended in order, with their key in an index: keyed
// by hash in a table without rowid, each insert moved kilobytes of vectors between pages
// (100,000 vectors of 384 dimensions took 4.4 s of processor time to store, against
// about 1 s).
var vectorsDDL = []string{
	`CREATE TABLE vectors(id INTEGER PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, hash TEXT NOT NULL,
		vector BLOB NOT NULL, UNIQUE(provider, model, hash))`,
	`CREATE TABLE state(changes INTEGER NOT NULL)`,
}

// vectorTables documents the store's tables, like Tables for a generation.
var vectorTables = []table{
	{Name: "vectors", Doc: "one vector per provider, model and chunk text; kept across rebuilds; a full build, and every embedding pass, drops the vectors of texts no chunk of the brain holds", Columns: []column{
		{"id", "integer primary key, in the order vectors were stored"},
		{"provider", "the provider's identity: its URL, or its command line as a JSON array"},
		{"model", "the model sent to the URL (or declared beside the command), or ''"},
		{"hash", "SHA-256 hex of the chunk text sent (chunks.hash)"},
		{"vector", "float32 little-endian values, scaled to unit length"},
	}},
	{Name: "state", Doc: "one row", Columns: []column{
		{"changes", "how many transactions added vectors; a copy of the store made at another count is out of date"},
	}},
}

// VectorKey names whose vectors these are: a vector of one provider or model is never
// compared with another's.
type VectorKey struct {
	// Provider is the URL, or the command line as a JSON array.
	Provider string
	// Model is the declared model, or ''.
	Model string
}

// VectorStore is an open .bf/vectors.sqlite.
type VectorStore struct {
	db   *sql.DB
	file string
}

// ErrVectorsDamaged says a vector read back from the store is not one bf wrote (wrong
// length, not finite, not of unit length): the store is discarded.
var ErrVectorsDamaged = errors.New(".bf/" + vectorsFile + " is damaged; it was discarded and its vectors will be computed again")

// OpenVectors opens b's vector store in root's .bf folder, creating it when missing. A file
// that is not a store of this version, or is damaged, is discarded and a new one made.
func OpenVectors(ctx context.Context, root string) (*VectorStore, error) {
	dir, err := prepareDir(root)
	if err != nil {
		return nil, err
	}
	s := &VectorStore{file: filepath.Join(dir, vectorsFile)}
	for attempt := 0; ; attempt++ {
		err := s.open(ctx)
		if err == nil {
			return s, nil
		}
		if attempt > 0 || !(errors.Is(err, errForeignStore) || isDamaged(err)) {
			return nil, fmt.Errorf(".bf/%s: %w", vectorsFile, err)
		}
		if err := s.discard(); err != nil {
			return nil, err
		}
	}
}

// OpenVectorsIfAny opens the store when root's .bf folder holds one, else returns nil.
func OpenVectorsIfAny(ctx context.Context, root string) (*VectorStore, error) {
	if _, err := os.Lstat(filepath.Join(root, Dir, vectorsFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return OpenVectors(ctx, root)
}

// errForeignStore is a file of another version or layout.
var errForeignStore = errors.New("not a vector store of this version")

// vectorsPageSize is the store's page size. A vector of 384 to 1,024 dimensions takes 1.5
// to 4 KiB: pages of SQLite's 4 KiB held one vector of 512 dimensions each, half empty
// (a store of 24,527 such vectors took 99 MiB for 50 MiB of values); pages of 16 KiB hold
// three to nine.
const vectorsPageSize = 16384

// open opens (or creates, mode 0600) the file and checks that it is a store of this
// version. synchronous FULL in WAL mode makes each committed batch survive a power cut.
func (s *VectorStore) open(ctx context.Context) error {
	f, err := os.OpenFile(s.file, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return dirError(err)
	}
	f.Close()
	db, err := sql.Open("sqlite", dsn(s.file, "mode=rw", "_pragma=synchronous(FULL)", "_txlock=immediate"))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	if err := checkVectors(ctx, db); err != nil {
		db.Close()
		return err
	}
	s.db = db
	return nil
}

// checkVectors creates the layout in an empty file, or checks a file's version, mark and
// layout.
func checkVectors(ctx context.Context, db *sql.DB) error {
	var version, app int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return err
	}
	tables, err := Strings(ctx, db, `SELECT sql FROM sqlite_master WHERE type = 'table' ORDER BY name DESC`)
	if err != nil {
		return err
	}
	if version == 0 && app == 0 && len(tables) == 0 {
		// The page size is set before the first table, and WAL mode (which the file then
		// keeps) after it: a file in WAL mode keeps the page size it has.
		if _, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA page_size = %d", vectorsPageSize)); err != nil {
			return err
		}
		if err := createVectors(ctx, db); err != nil {
			return err
		}
		_, err := db.ExecContext(ctx, "PRAGMA journal_mode = WAL")
		return err
	}
	if version != vectorsVersion || app != vectorsAppID || strings.Join(tables, ";") != strings.Join(vectorsDDL, ";") {
		return errForeignStore
	}
	return nil
}

// createVectors writes the store's layout into an empty file.
func createVectors(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range append(vectorsDDL, `INSERT INTO state(changes) VALUES(0)`,
		fmt.Sprintf("PRAGMA application_id = %d", vectorsAppID), fmt.Sprintf("PRAGMA user_version = %d", vectorsVersion)) {
		if _, err := tx.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// discard removes the store's files.
func (s *VectorStore) discard() error {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(s.file + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return dirError(err)
		}
	}
	return nil
}

// fail discards the store when err says it is damaged (the next open makes a new one)
// and returns err, so no caller goes on reading a damaged file.
func (s *VectorStore) fail(ctx context.Context, err error) error {
	if errors.Is(err, ErrVectorsDamaged) || (isDamaged(err) && confirmDamage(ctx, s.db, err)) {
		s.discard()
		return ErrVectorsDamaged
	}
	return err
}

// Close closes the store.
func (s *VectorStore) Close() error {
	if s.db == nil {
		return nil
	}
	return s.db.Close()
}

// Hashes returns the chunk hashes the store holds a vector of for key.
func (s *VectorStore) Hashes(ctx context.Context, key VectorKey) (map[string]bool, error) {
	out := map[string]bool{}
	rows, err := s.db.QueryContext(ctx, `SELECT hash FROM vectors WHERE provider = ? AND model = ?`, key.Provider, key.Model)
	err = EachRow(rows, err, func(r *sql.Rows) error {
		var h string
		err := r.Scan(&h)
		out[h] = true
		return err
	})
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	return out, nil
}

// Dimensions is the length of the vectors the store holds for key, 0 when it holds none:
// every pass refuses vectors of another length, so one tells them all.
func (s *VectorStore) Dimensions(ctx context.Context, key VectorKey) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT length(vector) FROM vectors WHERE provider = ? AND model = ? LIMIT 1`, key.Provider, key.Model).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	return n / 4, nil
}

// Put stores vectors (by chunk hash, each float32 little-endian of unit length) for key
// in one durable transaction: a pass that fails later keeps them.
func (s *VectorStore) Put(ctx context.Context, key VectorKey, vectors map[string][]byte) error {
	if len(vectors) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fail(ctx, err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT OR REPLACE INTO vectors(provider, model, hash, vector) VALUES(?, ?, ?, ?)`)
	if err != nil {
		return s.fail(ctx, err)
	}
	defer st.Close()
	for hash, v := range vectors {
		if _, err := st.ExecContext(ctx, key.Provider, key.Model, hash, v); err != nil {
			return s.fail(ctx, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE state SET changes = changes + 1`); err != nil {
		return s.fail(ctx, err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail(ctx, err)
	}
	return nil
}

// VectorSet is what the store holds for one key at one moment.
type VectorSet struct {
	// Changes is the store's change count when it was read.
	Changes int64
	// Vectors maps a chunk hash to its unit vector.
	Vectors map[string][]float32
}

// Load reads the vectors of key, with the store's change count, in one read: every vector
// when only is nil, else those of the hashes in only (a hash the store lacks is left out).
// A value that is not a unit vector of float32 values means the file is damaged: the store
// is discarded and ErrVectorsDamaged returned.
func (s *VectorStore) Load(ctx context.Context, key VectorKey, only []string) (VectorSet, error) {
	set := VectorSet{Vectors: map[string][]float32{}}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return set, s.fail(ctx, err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, `SELECT changes FROM state`).Scan(&set.Changes); err != nil {
		return set, s.fail(ctx, err)
	}
	take := func(r *sql.Rows) error {
		var h string
		var raw sql.RawBytes
		if err := r.Scan(&h, &raw); err != nil {
			return err
		}
		v, ok := decodeUnit(raw)
		if !ok {
			return ErrVectorsDamaged
		}
		set.Vectors[h] = v
		return nil
	}
	if only == nil {
		rows, err := tx.QueryContext(ctx, `SELECT hash, vector FROM vectors WHERE provider = ? AND model = ?`, key.Provider, key.Model)
		if err := EachRow(rows, err, take); err != nil {
			return VectorSet{}, s.fail(ctx, err)
		}
		return set, nil
	}
	st, err := tx.PrepareContext(ctx, `SELECT hash, vector FROM vectors WHERE provider = ? AND model = ? AND hash = ?`)
	if err != nil {
		return VectorSet{}, s.fail(ctx, err)
	}
	defer st.Close()
	for _, h := range only {
		rows, err := st.QueryContext(ctx, key.Provider, key.Model, h)
		if err := EachRow(rows, err, take); err != nil {
			return VectorSet{}, s.fail(ctx, err)
		}
	}
	return set, nil
}

// Changes reads the store's change count.
func (s *VectorStore) Changes(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, `SELECT changes FROM state`).Scan(&n); err != nil {
		return 0, s.fail(ctx, err)
	}
	return n, nil
}

// decodeUnit reads float32 little-endian values that must form a finite vector of unit
// length (within float32 rounding).
func decodeUnit(raw []byte) ([]float32, bool) {
	if len(raw) == 0 || len(raw)%4 != 0 {
		return nil, false
	}
	v := make([]float32, len(raw)/4)
	var sum float64
	for i := range v {
		x := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, false
		}
		v[i] = x
		sum += float64(x) * float64(x)
	}
	return v, math.Abs(sum-1) < 1e-3
}

// Keep drops the vectors, of every provider and model, whose text no chunk in used holds,
// and returns how many it dropped: the store never grows past the texts of the brain
// times the providers it used.
func (s *VectorStore) Keep(ctx context.Context, used map[string]bool) (int, error) {
	stored, err := Strings(ctx, s.db, `SELECT DISTINCT hash FROM vectors`)
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	var drop []string
	for _, h := range stored {
		if !used[h] {
			drop = append(drop, h)
		}
	}
	if len(drop) == 0 {
		return 0, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `DELETE FROM vectors WHERE hash = ?`)
	if err != nil {
		return 0, s.fail(ctx, err)
	}
	defer st.Close()
	for _, h := range drop {
		if _, err := st.ExecContext(ctx, h); err != nil {
			return 0, s.fail(ctx, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, s.fail(ctx, err)
	}
	return len(drop), nil
}

// ChunkText is one distinct chunk text of a generation.
type ChunkText struct {
	Hash, Text string
}

// ChunkTexts lists the generation's distinct chunk texts, by hash.
func (c *Cache) ChunkTexts(ctx context.Context) ([]ChunkText, error) {
	rows, err := c.db.QueryContext(ctx, `SELECT hash, min(text) FROM chunks GROUP BY hash ORDER BY hash`)
	return ReadRows(rows, err, func(r *sql.Rows) (ChunkText, error) {
		var t ChunkText
		err := r.Scan(&t.Hash, &t.Text)
		return t, err
	})
}

// usedHashes reads the distinct chunk hashes of a generation.
func usedHashes(ctx context.Context, q Querier) (map[string]bool, error) {
	hs, err := Strings(ctx, q, `SELECT DISTINCT hash FROM chunks`)
	if err != nil {
		return nil, err
	}
	used := make(map[string]bool, len(hs))
	for _, h := range hs {
		used[h] = true
	}
	return used, nil
}

// keepUsedVectors drops from the store, when .bf holds one, the vectors no chunk of the
// generation in file uses: a full build bounds the store by the brain's texts.
func keepUsedVectors(ctx context.Context, root, file string) error {
	st, err := OpenVectorsIfAny(ctx, root)
	if err != nil || st == nil {
		return err
	}
	defer st.Close()
	db, err := openFile(file, true)
	if err != nil {
		return err
	}
	defer db.Close()
	used, err := usedHashes(ctx, db)
	if err != nil {
		return err
	}
	_, err = st.Keep(ctx, used)
	return err
}

// ChunkState identifies the chunks of a generation: Generation is drawn at random by the
// build that made it and Changes counts the refreshes that changed its items since, so a
// copy of the chunks made at the same state is current.
type ChunkState struct {
	Generation string
	Changes    int64
}

// ReadChunkState reads the chunk state of the generation q reads.
func ReadChunkState(ctx context.Context, q Querier) (ChunkState, error) {
	var s ChunkState
	err := q.QueryRowContext(ctx, `SELECT generation, changes FROM chunk_state`).Scan(&s.Generation, &s.Changes)
	return s, err
}
