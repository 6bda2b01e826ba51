// Package scratch holds the process's private in-memory SQLite database, where text is run
// through FTS5 the way the cache's search table runs it: snippet() over one passage at a
// time. (Terms, stemmed or only folded, are cut in Go: package terms.)
//
// The database has one connection for the life of the process, each table is created once
// and each statement prepared once: a search asks it for every excerpt of its page, and
// opening a database, creating FTS5 tables and parsing statements for each would cost more
// than the work itself.
package scratch

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	_ "modernc.org/sqlite" // the driver of the scratch database
)

// Conn is the scratch database's connection, lent to one caller at a time by Do.
type Conn struct {
	conn   *sql.Conn
	stmts  map[string]*sql.Stmt
	tables map[string]bool
}

var db struct {
	once sync.Once
	mu   sync.Mutex
	conn *Conn
	err  error
}

func open() {
	d, err := sql.Open("sqlite", "file:bf-scratch?mode=memory&cache=private&_pragma=trusted_schema(OFF)")
	if err != nil {
		db.err = err
		return
	}
	d.SetMaxOpenConns(1)
	// The connection is never returned: the database lives as long as it does.
	c, err := d.Conn(context.Background())
	if err != nil {
		db.err = err
		return
	}
	db.conn = &Conn{conn: c, stmts: map[string]*sql.Stmt{}, tables: map[string]bool{}}
}

// Do runs fn with the scratch connection; callers take turns. fn must not call Do.
func Do(ctx context.Context, fn func(*Conn) error) error {
	db.once.Do(open)
	if db.err != nil {
		return fmt.Errorf("the scratch database: %w", db.err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	return fn(db.conn)
}

// Table runs the statements that create the table name, the first time it is asked for.
// A table dropped later must be created with Exec, not Table.
func (c *Conn) Table(ctx context.Context, name string, create ...string) error {
	if c.tables[name] {
		return nil
	}
	for _, stmt := range create {
		if _, err := c.conn.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	c.tables[name] = true
	return nil
}

// stmt returns query prepared on the connection, preparing it the first time. SQLite
// prepares a statement again by itself when the tables it reads were dropped and created
// since.
func (c *Conn) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

// Exec runs query with args.
func (c *Conn) Exec(ctx context.Context, query string, args ...any) error {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// Query runs query with args and returns its rows.
func (c *Conn) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRow runs query with args and scans its first row into dest; it returns
// sql.ErrNoRows when there is none.
func (c *Conn) QueryRow(ctx context.Context, query string, args []any, dest ...any) error {
	st, err := c.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.QueryRowContext(ctx, args...).Scan(dest...)
}

// Rollback ends the transaction Exec began, if one is open, whatever ctx says: the tables
// must be left as they were for the next caller.
func (c *Conn) Rollback(ctx context.Context) {
	// An error only says no transaction was open.
	c.Exec(context.WithoutCancel(ctx), `ROLLBACK`)
}
