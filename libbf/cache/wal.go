package cache

import (
	"context"
	"database/sql"
	"os"
	"strconv"
)

// A refresh writes to the write-ahead log, and the log only shrinks when a checkpoint
// empties it. SQLite's own automatic checkpoint never does here: every bf command is a
// new process, the first connection of which rebuilds the log's index by reading the
// whole log (and forgets, doing so, what earlier checkpoints copied), and a writer that
// closes while its read-only pool is open is never the last connection, which is what
// checkpoints on close. So the log grew by every page every refresh ever wrote (about
// 200 KB for one changed memory), and every later command, a search or a recall, paid a
// few milliseconds per megabyte to read it again at open.
//
// The writer of a refresh therefore empties the log itself once it passes logTrimSize,
// before it closes and while it holds the writer lock, so that the seal taken after
// covers what the checkpoint copied into the file. A reader of another process reading
// the log makes the checkpoint give up at once; the next refresh tries again.
const logTrimSize = 1 << 20

// closeWriting trims the write-ahead log of the live file (see above) and closes the
// writable connection db.
func closeWriting(db *sql.DB, live string) error {
	if st, err := os.Stat(live + "-wal"); err == nil && st.Size() > logTrimSize {
		trimLog(db)
	}
	return db.Close()
}

// trimLog checkpoints the whole write-ahead log into the file and truncates it, without
// waiting for another process's reader: best effort, since a long log only costs time.
func trimLog(db *sql.DB) {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA busy_timeout = 0"); err != nil {
		return
	}
	var busy, logged, copied int
	conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logged, &copied)
	conn.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.Itoa(busyTimeoutMS))
}
