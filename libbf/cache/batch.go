package cache

import (
	"context"
	"database/sql"
	"hash/maphash"
	"strings"
)

// A build inserts about ten rows per file into tables other than items (passages, names,
// links, edges…), a million statements on a large brain, each paying the statement's
// fixed cost (binding, cursors, the driver) for one row. A build's writer collects them
// instead and inserts batchRows rows per statement. It can: a build writes a new file, so
// the ids SQLite would give the passages are known in advance (one more than the last),
// and no row of those tables can fail on its own (their only constraints are ignored
// duplicates), so a file's rows need no savepoint. The one row that can fail is its item,
// when another file holds the same ref: a hash of every ref inserted tells the items that
// cannot (they are queued too), and the others are inserted at once, before the rest of
// their file, so SQLite checks them.
const batchRows = 64

// batched names the statements of writeSQL a build batches, in the order they are
// flushed at the end.
var batched = []string{"itemAt", "passageAt", "task", "name", "link", "tag", "edge", "review", "chunk", "file"}

// refSet holds a hash of each ref a build inserted, so that an item whose ref is not held
// yet (all but a few) is queued without asking SQLite.
type refSet struct {
	seed maphash.Seed
	held map[uint64]struct{}
}

// add records ref and reports whether no ref of the same hash was recorded before: then
// ref is certainly new.
func (s *refSet) add(ref string) bool {
	if s.held == nil {
		s.seed, s.held = maphash.MakeSeed(), map[uint64]struct{}{}
	}
	h := maphash.String(s.seed, ref)
	if _, ok := s.held[h]; ok {
		return false
	}
	s.held[h] = struct{}{}
	return true
}

// rowBatch collects the rows of one statement.
type rowBatch struct {
	one, many *sql.Stmt // one row, batchRows rows
	cols      int
	args      []any
}

// newRowBatches prepares the multi-row form of each batched statement.
func newRowBatches(ctx context.Context, tx *sql.Tx, one map[string]*sql.Stmt) (map[string]*rowBatch, error) {
	out := map[string]*rowBatch{}
	for _, k := range batched {
		head, tuple, ok := strings.Cut(writeSQL[k], "VALUES")
		if !ok {
			panic("cache: batched statement without VALUES: " + k)
		}
		tuple = strings.TrimSpace(tuple)
		many := head + "VALUES " + strings.TrimSuffix(strings.Repeat(tuple+", ", batchRows), ", ")
		st, err := tx.PrepareContext(ctx, many)
		if err != nil {
			closeBatches(out)
			return nil, err
		}
		cols := strings.Count(tuple, "?")
		out[k] = &rowBatch{one: one[k], many: st, cols: cols, args: make([]any, 0, cols*batchRows)}
	}
	return out, nil
}

func closeBatches(bs map[string]*rowBatch) {
	for _, b := range bs {
		b.many.Close()
	}
}

// add queues one row and inserts the batch once it is full.
func (b *rowBatch) add(ctx context.Context, args ...any) error {
	b.args = append(b.args, args...)
	if len(b.args) < b.cols*batchRows {
		return nil
	}
	_, err := b.many.ExecContext(ctx, b.args...)
	clear(b.args)
	b.args = b.args[:0]
	return err
}

// flush inserts the rows left, one statement each.
func (b *rowBatch) flush(ctx context.Context) error {
	for i := 0; i < len(b.args); i += b.cols {
		if _, err := b.one.ExecContext(ctx, b.args[i:i+b.cols]...); err != nil {
			return err
		}
	}
	clear(b.args)
	b.args = b.args[:0]
	return nil
}
