package queue

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// formatVersion is the queue format this build reads and writes, kept in PRAGMA
// user_version. Earlier releases of bf wrote formats 1 and 2 (and, before numbering, none:
// a queue with tables but user_version 0); there is no automatic migration, so they are
// recognised only to tell the user to follow the upgrade steps.
const formatVersion = 3

// applicationID marks the file as a bf queue ("bfQ" and a zero byte) in PRAGMA
// application_id, so a database of another program put in its place is refused as
// unexpected rather than mistaken for an old queue.
const applicationID = 0x62665100

// Times are Unix milliseconds (UTC). Sizes are bytes. Every state column is checked by the
// database so a bug cannot store a state the rest of the code does not know.
var ddl = []string{
	// Key-value facts about the queue itself: the brain's path and name it is bound to.
	`CREATE TABLE meta (
		key TEXT PRIMARY KEY,
		value TEXT NOT NULL
	) STRICT`,

	// Assistant jobs. input and answer are private bodies; NULL once retention dropped
	// them. size is what admission stored (it never changes: the answer-space formula
	// uses it); held is what the row's bodies occupy now; reserved is the answer space
	// the job holds while running or answered.
	`CREATE TABLE jobs (
		id TEXT PRIMARY KEY,
		assistant TEXT NOT NULL,
		kind TEXT NOT NULL,
		channel TEXT NOT NULL,
		conversation TEXT NOT NULL,
		schedule TEXT NOT NULL,
		state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'answered', 'completed', 'failed', 'uncertain', 'cancelled')),
		error TEXT NOT NULL,
		config BLOB NOT NULL,
		routes TEXT NOT NULL,
		route_count INTEGER NOT NULL CHECK (route_count >= 0),
		max_bytes INTEGER NOT NULL CHECK (max_bytes >= 0),
		input BLOB,
		answer BLOB,
		answer_bytes INTEGER NOT NULL,
		size INTEGER NOT NULL,
		held INTEGER NOT NULL,
		reserved INTEGER NOT NULL,
		attempts INTEGER NOT NULL,
		created INTEGER NOT NULL,
		updated INTEGER NOT NULL,
		finished INTEGER
	) STRICT`,
	`CREATE INDEX jobs_state ON jobs (state, created)`,

	// Channel deliveries, standalone (job = '') or a job's answer on one route. digest
	// identifies the payload so a resend of the same ID can be compared after retention
	// dropped the body. send is the snapshot of the channel's send capability taken at
	// admission; attempts counts the current round (an explicit retry starts it over).
	`CREATE TABLE deliveries (
		id TEXT PRIMARY KEY,
		job TEXT NOT NULL,
		channel TEXT NOT NULL,
		conversation TEXT NOT NULL,
		reply_to TEXT NOT NULL,
		body BLOB,
		body_bytes INTEGER NOT NULL,
		digest TEXT NOT NULL,
		send TEXT NOT NULL,
		idempotent INTEGER NOT NULL CHECK (idempotent IN (0, 1)),
		state TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'delivered', 'failed', 'uncertain', 'cancelled')),
		error TEXT NOT NULL,
		attempts INTEGER NOT NULL,
		next_attempt INTEGER NOT NULL,
		receipt_id TEXT NOT NULL,
		receipt_conversation TEXT NOT NULL,
		held INTEGER NOT NULL,
		created INTEGER NOT NULL,
		updated INTEGER NOT NULL,
		finished INTEGER
	) STRICT`,
	`CREATE INDEX deliveries_state ON deliveries (state, next_attempt)`,
	`CREATE INDEX deliveries_job ON deliveries (job) WHERE job <> ''`,
	`CREATE INDEX deliveries_receipt ON deliveries (channel, receipt_id) WHERE receipt_id <> ''`,
	`CREATE INDEX deliveries_conversation ON deliveries (channel, conversation, created)`,

	// Every attempt of a job or delivery, numbered from 1 over its whole life. outcome is
	// '' while the attempt runs.
	`CREATE TABLE attempts (
		work TEXT NOT NULL,
		n INTEGER NOT NULL,
		started INTEGER NOT NULL,
		ended INTEGER,
		outcome TEXT NOT NULL,
		error TEXT NOT NULL,
		PRIMARY KEY (work, n)
	) STRICT, WITHOUT ROWID`,

	// The owner of each running job or sending delivery. A row exists exactly while the
	// attempt runs; a dead owner means the attempt was interrupted.
	`CREATE TABLE leases (
		work TEXT PRIMARY KEY,
		n INTEGER NOT NULL,
		token TEXT NOT NULL,
		host TEXT NOT NULL,
		boot TEXT NOT NULL,
		pid INTEGER NOT NULL,
		start INTEGER NOT NULL,
		since INTEGER NOT NULL
	) STRICT`,

	// Admitted channel messages: the conversation cache (text, NULL once trimmed) and
	// identity tombstones, so a replayed or edited message with a known ID is not
	// admitted again.
	`CREATE TABLE messages (
		channel TEXT NOT NULL,
		id TEXT NOT NULL,
		input TEXT NOT NULL,
		conversation TEXT NOT NULL,
		sender TEXT NOT NULL,
		reply_to TEXT NOT NULL,
		time INTEGER NOT NULL,
		own INTEGER NOT NULL CHECK (own IN (0, 1)),
		text TEXT,
		held INTEGER NOT NULL,
		admitted INTEGER NOT NULL,
		UNIQUE (channel, id)
	) STRICT`,
	`CREATE INDEX messages_admitted ON messages (admitted)`,

	// The progress of each read or stream input: the position a read continues from and a
	// stream adapter's opaque cursor.
	`CREATE TABLE inputs (
		name TEXT PRIMARY KEY,
		position INTEGER NOT NULL,
		cursor TEXT NOT NULL,
		updated INTEGER NOT NULL
	) STRICT`,
}

// layout is sqlite_master of a queue of this format, computed once from ddl.
var layout = sync.OnceValues(func() (string, error) {
	db, err := sql.Open("sqlite", "file:queue-layout?mode=memory&_pragma=trusted_schema(OFF)")
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range ddl {
		if _, err := db.Exec(s); err != nil {
			return "", err
		}
	}
	return masterOf(context.Background(), db)
})

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func masterOf(ctx context.Context, db querier) (string, error) {
	rows, err := db.QueryContext(ctx, `SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master
		WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, tbl, text string
		if err := rows.Scan(&typ, &name, &tbl, &text); err != nil {
			return "", err
		}
		b.WriteString(typ + "\x00" + name + "\x00" + tbl + "\x00" + text + "\x00\n")
	}
	return b.String(), rows.Err()
}
