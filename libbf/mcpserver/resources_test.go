package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitOffset(t *testing.T) {
	for _, c := range []struct {
		uri, address string
		offset       int64
		err          string
	}{
		{"bf://acme/concepts/big.md", "bf://acme/concepts/big.md", 0, ""},
		{"bf://acme/concepts/big.md?offset=3903", "bf://acme/concepts/big.md", 3903, ""},
		{"bf://acme/concepts/big.md?offset=0", "bf://acme/concepts/big.md", 0, ""},
		{"bf://acme/concepts/big.md?offset=12#rules", "bf://acme/concepts/big.md#rules", 12, ""},
		{"bf://acme/concepts/big.md?rel=links&offset=5", "bf://acme/concepts/big.md?rel=links", 5, ""},
		{"bf://acme/concepts/big.md?offset=5&rel=links", "bf://acme/concepts/big.md?rel=links", 5, ""},
		{"bf://acme/concepts/big.md?rel=links", "bf://acme/concepts/big.md?rel=links", 0, ""},
		// An escaped ? belongs to the path.
		{"bf://acme/concepts/why%3Foffset=3.md", "bf://acme/concepts/why%3Foffset=3.md", 0, ""},
		{"bf://acme/mail:m-1?offset=7", "bf://acme/mail:m-1", 7, ""},
		{"bf://acme/concepts/big.md?offset=", "", 0, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
		{"bf://acme/concepts/big.md?offset=-1", "", 0, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
		{"bf://acme/concepts/big.md?offset=+1", "", 0, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
		{"bf://acme/concepts/big.md?offset=1e3", "", 0, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
		{"bf://acme/concepts/big.md?offset=1&offset=2", "", 0, "invalid input: offset: expected an integer from 0 to 9007199254740991"},
	} {
		address, offset, err := splitOffset(c.uri)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff([]any{c.address, c.offset, c.err}, []any{address, offset, got}); diff != "" {
			t.Errorf("splitOffset(%q) (-want +got):\n%s", c.uri, diff)
		}
	}
}
