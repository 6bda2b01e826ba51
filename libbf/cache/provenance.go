package cache

import (
	"context"
	"database/sql"
	"path"
	"path/filepath"
	"strings"

	"github.com/bfgo/bf/libbf/durable"
	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
)

// UnconfirmedSQL lists the ids of the items no one has confirmed (package provenance):
// what fused search, bf ask and MCP resources leave out at the default trust floor, and
// whose edges and claimed names no walk follows.
const UnconfirmedSQL = `SELECT item FROM reviews WHERE state = '` + provenance.Unreviewed + `'`

// Unconfirmed returns the refs of a generation's items no one has confirmed.
func Unconfirmed(ctx context.Context, q Querier) (map[string]bool, error) {
	refs, err := Strings(ctx, q, `SELECT ref FROM items WHERE id IN (`+UnconfirmedSQL+`)`)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(refs))
	for _, r := range refs {
		out[r] = true
	}
	return out, nil
}

// recheckUnconfirmed confirms the unconfirmed records of a listed folder that its source's
// ledger now names with their bytes. A person's acceptance (store.Adopt) and a pull of
// another machine's ledger change the ledger alone: the records stay as they were, so the
// refresh does not read them again, but the folder's listing changed with the ledger's
// atomic replacement. Only records held unconfirmed are read; a line removed from a
// ledger by hand unconfirms a record at its next change or at bf build.
func (w *writer) recheckUnconfirmed(ctx context.Context, ix *indexer, root, folder string) error {
	source, ok := strings.CutPrefix(folder, "memories/")
	if !ok || strings.Contains(source, "/") {
		return nil
	}
	rows, err := w.tx.QueryContext(ctx, `SELECT i.id, i.path FROM items i WHERE i.kind = '`+KindRecord+`' AND i.source = ? AND i.id IN (`+UnconfirmedSQL+`)`, source)
	type held struct {
		id   int64
		path string
	}
	list, err := ReadRows(rows, err, func(rows *sql.Rows) (held, error) {
		var h held
		return h, rows.Scan(&h.id, &h.path)
	})
	if err != nil || len(list) == 0 {
		return err
	}
	ledger := ix.ledger(source)
	for _, h := range list {
		data, err := durable.ReadRegular(filepath.Join(root, filepath.FromSlash(h.path)), record.MaxFileSize)
		if err != nil || !ledger.Confirms(path.Base(h.path), data) {
			continue // unreadable or unconfirmed: stays as it is
		}
		if _, err := w.tx.ExecContext(ctx, `DELETE FROM reviews WHERE item = ?`, h.id); err != nil {
			return err
		}
	}
	return nil
}
