package cache

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSpoolRoundTrip(t *testing.T) {
	batches := [][]ftsRow{
		{{id: 1, title: "Ledger", text: "migration plan", names: "project", context: "ops"}},
		{},
		{
			{id: 2},
			{id: 3, title: "Café", text: strings.Repeat("ünïcode ", 20000), names: "", context: "a b"},
			{id: -4, title: "négatif", text: "\x00\xff", names: "n", context: ""},
		},
		{{id: 1 << 40, text: "last"}},
	}
	dir := t.TempDir()
	s, err := newSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the spool left %d names in its folder, want none", len(entries))
	}
	// The reader runs behind the writer, as in a build.
	type batch struct {
		rows []ftsRow
		err  error
	}
	got := make(chan batch)
	go func() {
		var rows []ftsRow
		for {
			var err error
			rows, err = s.next(rows)
			got <- batch{append([]ftsRow(nil), rows...), err}
			if err != nil {
				return
			}
		}
	}()
	for _, b := range batches {
		if err := s.put(b); err != nil {
			t.Fatal(err)
		}
	}
	s.close(false)
	for i, want := range batches {
		b := <-got
		if b.err != nil {
			t.Fatalf("batch %d: %v", i, b.err)
		}
		if diff := cmp.Diff(want, b.rows, cmp.AllowUnexported(ftsRow{}), cmpEmpty); diff != "" {
			t.Errorf("batch %d (-want +got):\n%s", i, diff)
		}
	}
	if b := <-got; b.err != io.EOF {
		t.Errorf("after the last batch: %v, want io.EOF", b.err)
	}
}

// cmpEmpty makes a nil and an empty row list equal.
var cmpEmpty = cmp.Comparer(func(a, b []ftsRow) bool {
	return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b, cmp.AllowUnexported(ftsRow{}))
})

func TestSpoolStops(t *testing.T) {
	s, err := newSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.release()
	if err := s.put([]ftsRow{{id: 1, text: "kept"}}); err != nil {
		t.Fatal(err)
	}
	// A writer that failed: the reader stops at once, even with rows left.
	s.close(true)
	if _, err := s.next(nil); err == nil || err.Error() != "the build stopped" {
		t.Errorf("next after a failed writer = %v, want the build stopped", err)
	}

	s2, err := newSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.release()
	// A reader that failed: the writer's next put fails with its error.
	full := errors.New("database or disk is full")
	s2.halt(full)
	if err := s2.put([]ftsRow{{id: 1}}); !errors.Is(err, full) {
		t.Errorf("put after the reader stopped = %v, want %v", err, full)
	}
}
