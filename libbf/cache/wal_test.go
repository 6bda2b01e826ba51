package cache

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestRefreshesKeepTheLogShort: every command is a new process that reads the whole
// write-ahead log when it opens, so refreshes must not let it grow with each change. Forty
// refreshes of a note of about 100 KB write some 20 MB of pages; the log stays near
// logTrimSize, the generation is the same file throughout, and every open serves the
// note's latest text.
func TestRefreshesKeepTheLogShort(t *testing.T) {
	f := smallBrain(t)
	f.build()
	live := f.path(".bf/index.sqlite")
	gen := inode(t, live)
	var largest int64
	for i := range 40 {
		var body strings.Builder
		for w := range 12000 {
			fmt.Fprintf(&body, "w%dx%d ", i, w)
		}
		f.write("concepts/big.md", fmt.Sprintf("# Big %d\n\n%s\n", i, body.String()))
		f.touchPast("concepts/big.md")
		c, err := Open(context.Background(), f.brain())
		if err != nil {
			t.Fatal(err)
		}
		if got, want := titleOf(t, c, "concepts/big.md"), fmt.Sprintf("Big %d", i); got != want {
			t.Fatalf("refresh %d: title %q, want %q", i, got, want)
		}
		c.Close()
		st, err := os.Stat(live + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, st.Size())
	}
	if largest > 2*logTrimSize {
		t.Errorf("the write-ahead log reached %d bytes; want at most %d", largest, 2*logTrimSize)
	}
	if inode(t, live) != gen {
		t.Errorf("the generation was rebuilt: a trimmed log must leave a sealed, usable file")
	}
}
