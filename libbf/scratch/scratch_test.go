package scratch

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"
)

// A prepared statement outlives the table it reads being dropped and created again, and a
// rolled-back transaction leaves the table as it was.
func TestStatementsOutliveTables(t *testing.T) {
	ctx := context.Background()
	for round := range 3 {
		err := Do(ctx, func(c *Conn) error {
			if err := c.Exec(ctx, `CREATE TABLE IF NOT EXISTS words(w TEXT)`); err != nil {
				return err
			}
			defer c.Exec(ctx, `DROP TABLE words`)
			if err := c.Exec(ctx, `INSERT INTO words(w) VALUES (?)`, "kept"); err != nil {
				return err
			}
			if err := c.Exec(ctx, `BEGIN`); err != nil {
				return err
			}
			if err := c.Exec(ctx, `INSERT INTO words(w) VALUES (?)`, "undone"); err != nil {
				return err
			}
			c.Rollback(ctx)
			c.Rollback(ctx) // no transaction open: nothing happens
			var n int
			var w string
			if err := c.QueryRow(ctx, `SELECT count(*), max(w) FROM words`, nil, &n, &w); err != nil {
				return err
			}
			if n != 1 || w != "kept" {
				t.Errorf("round %d: %d rows, max %q; want 1 row, kept", round, n, w)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
}

// Table creates a table the first time only, and callers of Do take turns.
func TestTableOnceAndTurns(t *testing.T) {
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Do(ctx, func(c *Conn) error {
				// Without IF NOT EXISTS: a second CREATE would fail.
				if err := c.Table(ctx, "turns", `CREATE TABLE turns(n INTEGER)`); err != nil {
					return err
				}
				if err := c.Exec(ctx, `INSERT INTO turns(n) VALUES (?)`, i); err != nil {
					return err
				}
				var n int
				if err := c.QueryRow(ctx, `SELECT n FROM turns`, nil, &n); err != nil {
					return err
				}
				if n != i {
					t.Errorf("caller %d read %d: another caller wrote in its turn", i, n)
				}
				return c.Exec(ctx, `DELETE FROM turns`)
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	err := Do(ctx, func(c *Conn) error {
		var n int
		return c.QueryRow(ctx, `SELECT n FROM turns`, nil, &n)
	})
	if !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("empty table: err = %v, want sql.ErrNoRows", err)
	}
}
