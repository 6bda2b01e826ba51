package cache

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/bfgo/bf/libbf/brain"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// busyTimeoutMS is how long a statement waits for another connection's SQLite lock.
const busyTimeoutMS = 30000

// readCacheKiB is the page cache of a read-only connection, as PRAGMA cache_size states it
// (negative: KiB).
const readCacheKiB = -1024

// dsn is the driver name of a database file with connection pragmas. The file: URI form
// keeps a '?' or '#' in the brain's path from being read as parameters.
func dsn(file string, params ...string) string {
	u := url.URL{Path: file}
	q := []string{
		"_pragma=busy_timeout(" + strconv.Itoa(busyTimeoutMS) + ")",
		"_pragma=trusted_schema(OFF)",
		"_defensive=1",
	}
	return "file:" + u.EscapedPath() + "?" + strings.Join(append(q, params...), "&")
}

// openFile opens a database file; mode=rw never creates it. readOnly connections open it
// read-only (mode=ro) and set query_only, so a reader can never change a generation: not
// even its last close checkpoints the write-ahead log into the file, which only writers
// change, under the writer lock, sealing it after (see seal.go).
func openFile(file string, readOnly bool) (*sql.DB, error) {
	params := []string{"mode=rw"}
	if readOnly {
		params = []string{"mode=ro"}
		// A command reads most pages once: a page cache of 1 MiB (readCacheKiB) instead of
		// SQLite's 2 MiB recycles its buffers sooner, and a process that touches less fresh
		// memory pays fewer page faults (300-750 fewer for a page read of the large bench
		// brain; searches read the same).
		params = append(params, "_query_only=1", fmt.Sprintf("_pragma=cache_size(%d)", readCacheKiB))
	} else {
		// A refresh writes each file inside a savepoint, whose undo pages SQLite keeps in a
		// temporary file unless temp_store is MEMORY (thousands of writes to /var/tmp for a
		// refresh of 100 records). synchronous NORMAL, safe in WAL mode, spares the fsync
		// of each commit: a power cut can only lose the last refreshes of a disposable
		// cache, and the next open finds those files changed again.
		params = append(params, "_txlock=immediate", "_pragma=temp_store(MEMORY)", "_pragma=synchronous(NORMAL)")
	}
	db, err := sql.Open("sqlite", dsn(file, params...))
	if err != nil {
		return nil, err
	}
	if !readOnly {
		db.SetMaxOpenConns(1)
	}
	return db, nil
}

// isDamaged reports a database error that means the file is damaged (SQLITE_CORRUPT or
// SQLITE_NOTADB), or a value no build writes (see isImpossible): the generation must be
// discarded and rebuilt.
func isDamaged(err error) bool {
	if errors.Is(err, errDamaged) || isImpossible(err) {
		return true
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// isImpossible reports a value the schema never holds, read from a generation: a NULL
// where every build writes text or a number. Only damage writes one, and quick_check can
// miss it (a value read through a damaged index, which quick_check does not compare with
// its table), so it counts as damage without that check. database/sql reports it only as
// text, so the text is matched.
func isImpossible(err error) bool {
	// Each error of the chain is read: a wrapper such as unavailableError hides the text.
	for ; err != nil; err = errors.Unwrap(err) {
		msg := err.Error()
		if strings.Contains(msg, "sql: Scan error on column") && strings.Contains(msg, "converting NULL to") {
			return true
		}
	}
	return false
}

// confirmDamage runs PRAGMA quick_check(1) after an error IsDamaged classified; a value no
// build writes needs no confirmation.
func confirmDamage(ctx context.Context, db *sql.DB, err error) bool {
	if isImpossible(err) {
		return true
	}
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&res); err != nil {
		return true
	}
	return res != "ok"
}

// signature identifies what a generation was built for: the brain's name and its declared
// fields without the keys that never change what is indexed. Another signature forces a
// full rebuild.
func signature(b *brain.Brain) string {
	fields := map[string]any{}
	if b.Config != nil {
		for name, f := range b.Config.Fields {
			raw, _ := json.Marshal(f)
			var m map[string]any
			json.Unmarshal(raw, &m)
			for _, k := range []string{"description", "examples", "broader", "targets"} {
				delete(m, k)
			}
			fields[name] = m
		}
	}
	// Declaring an embeddings provider adds chunks to every item: the generation is
	// rebuilt when that changes.
	s := struct {
		Name   string         `json:"name"`
		Fields map[string]any `json:"fields"`
		Chunks bool           `json:"chunks,omitempty"`
	}{b.Name, fields, b.Config != nil && b.Config.Embeddings != nil}
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	sum := sha256.Sum256([]byte(strings.TrimSuffix(out.String(), "\n")))
	return hex.EncodeToString(sum[:])
}

// layoutDigest is the SHA-256 (hex) of layout(). Open compares a generation's
// sqlite_master with it, so a process need not build the in-memory generation layout()
// makes (about 1.5 ms, a few percent of a warm search); only another value is compared
// with layout() in full. TestLayoutDigest fails, naming the new value, when the DDL changes.
const layoutDigest = "dd325048abf8d9849624c579f425178be8b06d5282147fef688a928808b1dafc"

// layout is sqlite_master of a complete generation, computed from the DDL.
var layout = sync.OnceValues(func() (string, error) {
	db, err := sql.Open("sqlite", "file:layout?mode=memory&_pragma=trusted_schema(OFF)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range append(append([]string{}, ddl...), indexes...) {
		if _, err := db.Exec(s); err != nil {
			return "", err
		}
	}
	return masterOf(context.Background(), db)
})

func masterOf(ctx context.Context, db *sql.DB) (string, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master
		WHERE name NOT LIKE 'sqlite_stat%' ORDER BY type, name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, tbl, sqlText string
		if err := rows.Scan(&typ, &name, &tbl, &sqlText); err != nil {
			return "", err
		}
		b.WriteString(typ + "\x00" + name + "\x00" + tbl + "\x00" + sqlText + "\x00\n")
	}
	return b.String(), rows.Err()
}

// A build stamps the generation it completes with its layout: PRAGMA application_id holds
// layoutStamp of its schema cookie (PRAGMA schema_version, which SQLite changes with every
// change of sqlite_master). A generation whose stamp matches its cookie therefore still has
// the layout this build wrote, and Open need not read and hash sqlite_master (the rows of
// every table and index, about a millisecond of each command). A generation without the
// stamp (built before it existed) or whose schema changed since is compared in full, as
// before.

// layoutStamp is the application_id of a generation of this layout whose schema cookie is
// cookie: 31 bits of the SHA-256 of layoutDigest and the cookie, never 0 (no stamp).
func layoutStamp(cookie int64) int64 {
	sum := sha256.Sum256([]byte(layoutDigest + "\x00" + strconv.FormatInt(cookie, 10)))
	v := int64(binary.BigEndian.Uint32(sum[:4]) >> 1)
	if v == 0 {
		v = 1
	}
	return v
}

// stampLayout writes the layout stamp of db's current schema cookie; a build calls it once
// the generation's schema is complete.
func stampLayout(ctx context.Context, db *sql.DB) error {
	var cookie int64
	if err := db.QueryRowContext(ctx, "PRAGMA schema_version").Scan(&cookie); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", layoutStamp(cookie)))
	return err
}

// onLayoutRead is called when usable reads sqlite_master (tests count it).
var onLayoutRead func()

// layoutOf reports whether db's sqlite_master is the layout of this schema.
func layoutOf(ctx context.Context, db *sql.DB) (bool, error) {
	got, err := masterOf(ctx, db)
	if err != nil {
		return false, err
	}
	if sum := sha256.Sum256([]byte(got)); hex.EncodeToString(sum[:]) == layoutDigest {
		return true, nil
	}
	// Another layout, or layoutDigest not updated with the DDL: compare in full.
	want, err := layout()
	if err != nil {
		return false, err
	}
	return got == want, nil
}

// usable reports whether db is a complete generation of this schema, built for signature sig
// in the file with inode ino. A database error (damage included) is returned as is.
func usable(ctx context.Context, db *sql.DB, sig string, ino uint64) (bool, error) {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	if version != schemaVersion {
		return false, nil
	}
	var cookie, stamp int64
	if err := db.QueryRowContext(ctx, `SELECT s.schema_version, a.application_id
		FROM pragma_schema_version s, pragma_application_id a`).Scan(&cookie, &stamp); err != nil {
		return false, err
	}
	if stamp == 0 || stamp != layoutStamp(cookie) {
		// Not stamped by a build of this layout (an older build), or the schema changed
		// since: read sqlite_master itself.
		if onLayoutRead != nil {
			onLayoutRead()
		}
		good, err := layoutOf(ctx, db)
		if err != nil || !good {
			return false, err
		}
	}
	var s, file string
	err := db.QueryRowContext(ctx, "SELECT signature, file FROM meta").Scan(&s, &file)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s == sig && file == strconv.FormatUint(ino, 10), nil
}
