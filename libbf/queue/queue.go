package queue

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bfgo/bf/libbf/durable"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// FileName is the queue's file inside a brain's state folder.
const FileName = "queue.sqlite3"

// miB is a mebibyte, the unit of every limit below.
const miB = 1 << 20

// Binding is what a queue is bound to: the brain's absolute path (symlinks resolved) and
// its name. Work admitted under one binding is never executed under another.
type Binding struct {
	Path string `json:"path"`
	Name string `json:"name"`
}

// Options holds the clock and the limits. A zero field takes its default; tests shrink the
// limits to reach them with little data.
type Options struct {
	// Now is the clock every stored time comes from (default time.Now).
	Now func() time.Time
	// MaxObligations is the number of unfinished jobs and deliveries, counting each
	// unanswered job's future deliveries (default 10,000).
	MaxObligations int
	// MaxDatabaseBytes caps the file (default 256 MiB); SQLite itself refuses to grow past it.
	MaxDatabaseBytes int64
	// MaxWorkBytes caps the bytes of stored bodies (default 192 MiB).
	MaxWorkBytes int64
	// AdmitBytes stops admission once stored bytes plus reserved answer space reach it
	// (default 96 MiB). A single job may not need more answer space than this.
	AdmitBytes int64
	// RetentionBytes is the budget of completed bodies kept per kind: job, delivery and
	// conversation (default 8 MiB each).
	RetentionBytes int64
	// ConversationMessages caps the messages whose text the conversation cache keeps
	// (default 10,000).
	ConversationMessages int
	// TombstoneAge is how long identities of completed work are kept (default 35 days).
	TombstoneAge time.Duration
	// MaxAttempts is how many automatic attempts a retrying delivery gets (default 20).
	MaxAttempts int
	// FirstBackoff and MaxBackoff bound the wait before an automatic retry: the wait
	// doubles from FirstBackoff after each attempt, up to MaxBackoff (defaults 2 s, 300 s).
	FirstBackoff, MaxBackoff time.Duration
	// BusyTimeout is how long a statement waits for another process's lock (default 30 s).
	BusyTimeout time.Duration

	// cachePages, when set, shrinks SQLite's page cache so crash tests can make a
	// transaction write pages into the file before it commits.
	cachePages int
}

func (o Options) withDefaults() Options {
	if o.Now == nil {
		o.Now = time.Now
	}
	setInt(&o.MaxObligations, 10_000)
	setInt(&o.ConversationMessages, 10_000)
	setInt(&o.MaxAttempts, 20)
	setInt(&o.MaxDatabaseBytes, 256*miB)
	setInt(&o.MaxWorkBytes, 192*miB)
	setInt(&o.AdmitBytes, 96*miB)
	setInt(&o.RetentionBytes, 8*miB)
	setInt(&o.TombstoneAge, 35*24*time.Hour)
	setInt(&o.FirstBackoff, 2*time.Second)
	setInt(&o.MaxBackoff, 300*time.Second)
	setInt(&o.BusyTimeout, 30*time.Second)
	return o
}

func setInt[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Queue is an open queue file. Its methods may be called from several goroutines; they run
// one at a time on one SQLite connection. Several Queues, in one process or several, may
// share a file: SQLite's locks serialize their writes.
type Queue struct {
	mu       sync.Mutex
	db       *sql.DB
	conn     *sql.Conn
	file     string
	opts     Options
	readOnly bool
	bound    Binding
}

var ctx = context.Background()

// Open opens, or creates, the queue in dir (a brain's state folder, which must exist) for
// execution by the brain bind describes. Opening rolls back a write a killed process left
// behind. A queue bound to another path or name is rebound when it holds no unresolved
// work and refused (ErrRebind) otherwise.
func Open(dir string, bind Binding, opts Options) (*Queue, error) {
	if bind.Path == "" || bind.Name == "" {
		return nil, newError(errInvalid, "assistant queue binding needs the brain's path and name")
	}
	q, created, err := openFile(dir, false, opts)
	if err != nil {
		return nil, err
	}
	if err := q.prepare(created); err != nil {
		q.Close()
		return nil, err
	}
	if err := q.bind(bind); err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// OpenReadOnly opens an existing queue in dir without changing anything, for status and
// listings. It returns an error matching fs.ErrNotExist when there is no queue,
// errInterruptedWrite when a killed writer left a write to roll back (only a writer may),
// and errOldFormat or errUnknownFormat for a queue this build does not read. Use
// CheckBinding to learn whether execution would be refused.
func OpenReadOnly(dir string, opts Options) (*Queue, error) {
	q, _, err := openFile(dir, true, opts)
	if err != nil {
		return nil, err
	}
	if err := q.prepare(false); err != nil {
		q.Close()
		return nil, err
	}
	err = q.read(func(tx *sql.Tx) error {
		var err error
		q.bound, err = readBinding(tx)
		return err
	})
	if err != nil {
		q.Close()
		return nil, err
	}
	return q, nil
}

// File is the path of the queue's database file.
func (q *Queue) File() string { return q.file }

// Binding is the brain path and name the queue is bound to (empty for a queue that was
// never bound).
func (q *Queue) Binding() Binding {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bound
}

// Close releases the queue.
func (q *Queue) Close() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	var errs []error
	if q.conn != nil {
		errs = append(errs, q.conn.Close())
		q.conn = nil
	}
	if q.db != nil {
		errs = append(errs, q.db.Close())
		q.db = nil
	}
	return errors.Join(errs...)
}

func openFile(dir string, readOnly bool, opts Options) (*Queue, bool, error) {
	opts = opts.withDefaults()
	info, err := os.Stat(dir)
	if err != nil {
		return nil, false, fmt.Errorf("%s: cannot read the brain's state folder; create it before opening the assistant queue: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, false, newError(errInvalid, "%s: the brain's state folder is not a folder; move the file away", dir)
	}
	file := filepath.Join(dir, FileName)
	created := false
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		if readOnly {
			return nil, false, fmt.Errorf("%s: no assistant queue yet: %w", file, err)
		}
		created = true
	} else if err != nil {
		return nil, false, fmt.Errorf("%s: cannot read the assistant queue; check the state folder's permissions: %w", file, err)
	}

	// The queue file is never opened with os.Open while SQLite holds it: closing any
	// descriptor of a file drops the process's POSIX locks on it, SQLite's included.
	u := url.URL{Path: file}
	params := []string{"_pragma=busy_timeout(" + strconv.FormatInt(opts.BusyTimeout.Milliseconds(), 10) + ")", "_defensive=1"}
	if readOnly {
		params = append(params, "mode=ro")
	} else {
		params = append(params, "mode=rwc", "_txlock=immediate")
	}
	db, err := sql.Open("sqlite", "file:"+u.EscapedPath()+"?"+strings.Join(params, "&"))
	if err != nil {
		return nil, false, ioError(file, "open", err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, false, openError(file, err)
	}
	return &Queue{db: db, conn: conn, file: file, opts: opts, readOnly: readOnly}, created, nil
}

// prepare sets the connection up, rolls back an interrupted write (writers only), checks
// the format and creates the schema of a new queue.
func (q *Queue) prepare(created bool) error {
	pragmas := []string{"trusted_schema = OFF", "temp_store = MEMORY"}
	if !q.readOnly {
		// Each commit is durable when it returns: the rollback journal is synced before the
		// database is written, and with EXTRA its deletion (the commit point) is synced
		// too, so a power cut cannot bring a committed transaction back. fullfsync makes
		// the syncs reach stable storage on macOS. secure_delete overwrites the private
		// bodies retention drops instead of leaving them in free pages.
		pragmas = append(pragmas, "journal_mode = DELETE", "synchronous = EXTRA", "fullfsync = ON", "secure_delete = ON")
	}
	if q.opts.cachePages > 0 {
		pragmas = append(pragmas, "cache_size = "+strconv.Itoa(q.opts.cachePages), "cache_spill = 1")
	}
	for _, p := range pragmas {
		// The first statement reads the file; for a writer SQLite then rolls back a
		// journal a killed process left behind, and a reader is refused with
		// SQLITE_READONLY_ROLLBACK instead.
		if _, err := q.conn.ExecContext(ctx, "PRAGMA "+p); err != nil {
			return openError(q.file, err)
		}
	}
	if !q.readOnly {
		var pageSize int64
		if err := q.conn.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize); err != nil {
			return openError(q.file, err)
		}
		if _, err := q.conn.ExecContext(ctx, "PRAGMA max_page_count = "+strconv.FormatInt(q.opts.MaxDatabaseBytes/pageSize, 10)); err != nil {
			return openError(q.file, err)
		}
	}
	empty, err := checkFormat(q.conn)
	if err != nil {
		return openError(q.file, err)
	}
	if !empty {
		if err := q.settleJournal(); err != nil {
			return err
		}
		if q.readOnly {
			return nil
		}
		return q.makePrivate()
	}
	if q.readOnly {
		// A file whose creation was interrupted holds no queue yet.
		return fmt.Errorf("%s: no assistant queue yet: %w", q.file, fs.ErrNotExist)
	}
	err = q.write("create", func(tx *sql.Tx) error {
		// Another process may have created the schema while this one waited for the lock.
		empty, err := checkFormat(tx)
		if err != nil || !empty {
			return err
		}
		for _, s := range ddl {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", applicationID, formatVersion))
		return err
	})
	if err != nil {
		return err
	}
	if created {
		// The folder is synced so the new file's name survives a power cut.
		if err := durable.SyncDir(filepath.Dir(q.file)); err != nil {
			return fmt.Errorf("%s: cannot sync the state folder; check the disk: %w", filepath.Dir(q.file), err)
		}
	}
	return q.makePrivate()
}

// makePrivate gives the file mode 0600: SQLite creates it with the umask's permissions,
// and a process killed right after creating it may not have fixed them. Journals take the
// file's mode.
func (q *Queue) makePrivate() error {
	info, err := os.Stat(q.file)
	if err != nil {
		return fmt.Errorf("%s: cannot read the assistant queue; check the state folder: %w", q.file, err)
	}
	if info.Mode().Perm() == 0o600 {
		return nil
	}
	if err := os.Chmod(q.file, 0o600); err != nil {
		return fmt.Errorf("%s: cannot make the assistant queue private; check the state folder: %w", q.file, err)
	}
	return nil
}

// settleJournal removes a journal a killed writer left before it was complete. SQLite
// rolls back a journal that holds a committed-to-be-undone write, but leaves one whose
// header was never finished (the database was not touched yet) in place. A write
// transaction of this connection rewrites and deletes it, under SQLite's own locks, so a
// journal of another process's running transaction is never touched.
func (q *Queue) settleJournal() error {
	if q.readOnly {
		return nil
	}
	if _, err := os.Lstat(q.file + "-journal"); err != nil {
		return nil
	}
	return q.write("recover", func(tx *sql.Tx) error {
		// Rewriting the format number writes page 1 whatever the queue holds.
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", formatVersion))
		return err
	})
}

type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// checkFormat reports whether the database is empty (new) and refuses one of another
// format.
func checkFormat(db rowQuerier) (bool, error) {
	var version, appID, tables int64
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID); err != nil {
		return false, err
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").Scan(&tables); err != nil {
		return false, err
	}
	switch {
	case version == 0 && appID == 0 && tables == 0:
		return true, nil
	case appID != 0 && appID != applicationID, version > formatVersion:
		return false, newError(errUnknownFormat, "%s", msgUnknownFormat)
	case version < formatVersion && appID == 0:
		return false, newError(errOldFormat, "%s", msgOldFormat)
	case version < formatVersion:
		return false, newError(errUnknownFormat, "%s", msgUnknownFormat)
	}
	got, err := masterOf(ctx, db)
	if err != nil {
		return false, err
	}
	want, err := layout()
	if err != nil {
		return false, err
	}
	if got != want {
		return false, newError(errUnknownFormat, "%s", msgUnknownFormat)
	}
	return false, nil
}

func openError(file string, err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_READONLY_ROLLBACK:
			return &Error{Kind: errInterruptedWrite, Msg: msgInterruptedWrite, Err: err}
		case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
			return &Error{Kind: errUnknownFormat, Msg: msgUnknownFormat, Err: err}
		}
	}
	return ioError(file, "open", err)
}

// bind records the binding of a new queue, rebinds one without unresolved work and refuses
// otherwise.
func (q *Queue) bind(b Binding) error {
	return q.write("bind", func(tx *sql.Tx) error {
		old, err := readBinding(tx)
		if err != nil {
			return err
		}
		if old == b {
			q.bound = b
			return nil
		}
		if old != (Binding{}) {
			n, err := unresolved(tx)
			if err != nil {
				return err
			}
			if n > 0 {
				return rebindError(old, b)
			}
		}
		if err := writeBinding(tx, b); err != nil {
			return err
		}
		q.bound = b
		return nil
	})
}

// CheckBinding returns the ErrRebind error execution under b would meet, or nil. bf
// status reports it as a problem while reading the queue normally.
func (q *Queue) CheckBinding(b Binding) error {
	return q.read(func(tx *sql.Tx) error {
		old, err := readBinding(tx)
		if err != nil || old == b || old == (Binding{}) {
			return err
		}
		n, err := unresolved(tx)
		if err != nil || n == 0 {
			return err
		}
		return rebindError(old, b)
	})
}

func rebindError(old, now Binding) error {
	msg := fmt.Sprintf("assistant queue holds unresolved work admitted under this brain's previous path or name; "+
		"restore the path %s and the name %s, resolve the work with bf queue, then move or rename the brain again", old.Path, old.Name)
	if gone(old, now) {
		// A brain deleted and another created on the same inode meets the same refusal
		// as a moved one, and cannot restore a path that is gone: offer the takeover.
		msg += fmt.Sprintf("; %s is no longer this folder: if that brain was moved here, or deleted and this folder is a new brain, "+
			"take its queue over with bf queue --adopt, then retry or cancel its work", old.Path)
	}
	return newError(ErrRebind, "%s", msg)
}

// gone reports whether the brain folder a queue was bound to (old) is surely no longer
// there: its path names nothing, or another folder than the brain opening it now. A path
// that cannot be checked counts as still there, so the takeover is only offered when
// restoring the path cannot help.
func gone(old, now Binding) bool {
	was, err := os.Stat(old.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	is, err := os.Stat(now.Path)
	return err == nil && !os.SameFile(was, is)
}

// Takeover opens the queue in dir like Open, rebinding it to bind even while it holds
// unresolved work, provided the path it is bound to is gone (see gone): the brain there
// was moved to bind's path, or deleted and this folder is a new brain on its inode, so
// restoring the path cannot help. The previous binding is returned. While that path is
// still this folder (only the name changed), Takeover refuses (ErrRebind).
func Takeover(dir string, bind Binding, opts Options) (*Queue, Binding, error) {
	if bind.Path == "" || bind.Name == "" {
		return nil, Binding{}, newError(errInvalid, "assistant queue binding needs the brain's path and name")
	}
	q, created, err := openFile(dir, false, opts)
	if err != nil {
		return nil, Binding{}, err
	}
	if err := q.prepare(created); err != nil {
		q.Close()
		return nil, Binding{}, err
	}
	var old Binding
	err = q.write("take over", func(tx *sql.Tx) error {
		var err error
		if old, err = readBinding(tx); err != nil {
			return err
		}
		if old != (Binding{}) && old != bind && !gone(old, bind) {
			return newError(ErrRebind, "assistant queue is bound to the brain %s at %s, which is still this folder; "+
				"restore the name %s in bf.yaml and resolve its work with bf queue instead", old.Name, old.Path, old.Name)
		}
		return writeBinding(tx, bind)
	})
	if err != nil {
		q.Close()
		return nil, Binding{}, err
	}
	q.bound = bind
	return q, old, nil
}

func writeBinding(tx *sql.Tx, b Binding) error {
	for k, v := range map[string]string{"path": b.Path, "name": b.Name} {
		if _, err := tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", k, v); err != nil {
			return err
		}
	}
	return nil
}

func readBinding(tx *sql.Tx) (Binding, error) {
	rows, err := tx.QueryContext(ctx, "SELECT key, value FROM meta WHERE key IN ('path', 'name')")
	if err != nil {
		return Binding{}, err
	}
	defer rows.Close()
	var b Binding
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return Binding{}, err
		}
		if k == "path" {
			b.Path = v
		} else {
			b.Name = v
		}
	}
	return b, rows.Err()
}

// unresolved counts jobs and deliveries that still need the user or a worker.
func unresolved(tx *sql.Tx) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM jobs WHERE state IN `+unresolvedJobs+`) +
		(SELECT count(*) FROM deliveries WHERE state IN `+unresolvedDeliveries+`)`).Scan(&n)
	return n, err
}

// write runs fn in a BEGIN IMMEDIATE transaction: it waits for other writers up front
// instead of failing on a lock upgrade halfway.
func (q *Queue) write(doing string, fn func(tx *sql.Tx) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.readOnly {
		return newError(errReadOnly, "%s: the assistant queue was opened read-only; open it for execution to change it", q.file)
	}
	if q.conn == nil {
		return newError(ErrState, "%s: the assistant queue is closed", q.file)
	}
	tx, err := q.conn.BeginTx(ctx, nil)
	if err != nil {
		return ioError(q.file, doing, err)
	}
	crashPoint("begun")
	err = fn(tx)
	var keep commitAnyway
	if err != nil && !errors.As(err, &keep) {
		tx.Rollback()
		return ioError(q.file, doing, err)
	}
	crashPoint("commit")
	if cerr := tx.Commit(); cerr != nil {
		return ioError(q.file, doing, cerr)
	}
	crashPoint("committed")
	if keep.err != nil {
		return keep.err
	}
	return nil
}

// read runs fn in a read transaction, so what it reads is one consistent state.
func (q *Queue) read(fn func(tx *sql.Tx) error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.conn == nil {
		return newError(ErrState, "%s: the assistant queue is closed", q.file)
	}
	tx, err := q.conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return openError(q.file, err)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return ioError(q.file, "read", err)
	}
	return nil
}

// crashPoint lets crash tests stop the process at a named point of a transaction. It does
// nothing unless a test set crashHook.
func crashPoint(name string) {
	if crashHook != nil {
		crashHook(name)
	}
}

var crashHook func(string)

func isFull(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_FULL
}

func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code()&0xff == sqlite3.SQLITE_BUSY || se.Code()&0xff == sqlite3.SQLITE_LOCKED)
}

func ms(t time.Time) int64 { return t.UnixMilli() }

func fromMS(v int64) time.Time { return time.UnixMilli(v).UTC() }

func (q *Queue) now() time.Time { return q.opts.Now().UTC() }
