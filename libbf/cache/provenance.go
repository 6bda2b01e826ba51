package cache

import (
	"context"

	"github.com/bfgo/bf/libbf/provenance"
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
