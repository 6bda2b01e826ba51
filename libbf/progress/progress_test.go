package progress

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		done, total int
		elapsed     time.Duration
		want        string
	}{
		{0, 5000, 0, "bf: indexing 0/5000 files"},
		{10, 5000, 0, "bf: indexing 10/5000 files"},
		{1000, 5000, 2 * time.Second, "bf: indexing 1000/5000 files, 500 files/s, about 8s left"},
		{4999, 5000, 10 * time.Second, "bf: indexing 4999/5000 files, 500 files/s, about 1s left"},
		{100, 100000, 10 * time.Second, "bf: indexing 100/100000 files, 10 files/s, about 2h46m30s left"},
		{1200, 5000, 1500 * time.Millisecond, "bf: indexing 1200/5000 files, 800 files/s, about 5s left"},
	}
	for _, tt := range tests {
		if got := format("indexing", tt.done, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("Format(%d, %d, %v) = %q, want %q", tt.done, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

// TestLine draws at the start, at most every 100 ms, and clears the line at the end.
func TestLine(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &line{W: &buf, Label: "indexing", Min: 10, Now: func() time.Time { return now }}
	steps := []struct {
		done int
		wait time.Duration
		want string
	}{
		{0, 0, "\rbf: indexing 0/100 files\033[K"},
		{1, 50 * time.Millisecond, ""},
		{20, 150 * time.Millisecond, "\rbf: indexing 20/100 files, 100 files/s, about 1s left\033[K"},
		{21, 10 * time.Millisecond, ""},
		{100, 10 * time.Millisecond, "\r\033[K"},
	}
	for _, s := range steps {
		now = now.Add(s.wait)
		buf.Reset()
		l.Report(s.done, 100)
		if buf.String() != s.want {
			t.Errorf("Report(%d): %q, want %q", s.done, buf.String(), s.want)
		}
	}
	// Below Min nothing is drawn, not even the clearing.
	buf.Reset()
	small := &line{W: &buf, Label: "indexing", Min: 10}
	small.Report(0, 9)
	small.Report(9, 9)
	if buf.Len() != 0 {
		t.Errorf("small work drew %q", buf.String())
	}
}

func TestIsTerminal(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for name, w := range map[string]any{"buffer": &bytes.Buffer{}, "file": file, "null device": null, "nil file": (*os.File)(nil)} {
		if isTerminal(w.(interface{ Write([]byte) (int, error) })) {
			t.Errorf("%s counts as a terminal", name)
		}
		if w, ok := w.(*bytes.Buffer); ok && For(w, "indexing", 0) != nil {
			t.Error("For drew on a buffer")
		}
	}
	// A pseudo-terminal's master side is a terminal, where the system offers one.
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptmx.Close()
	if !isTerminal(ptmx) {
		t.Error("a pseudo-terminal does not count as a terminal")
	}
	if For(ptmx, "indexing", 0) == nil {
		t.Error("For draws nothing on a terminal")
	}
}
