package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brainfix"
)

const (
	m1 = "== 2026-10-16T09:00:00.000000Z ok =="
	m2 = "== 2026-10-16T09:01:00.000000Z exit 3 =="
	m3 = "== 2026-10-16T09:02:00.000000Z ok =="
	mN = "== 2026-10-16T09:03:00.000000Z timeout after 5s =="
)

func TestCompose(t *testing.T) {
	tests := []struct {
		name    string
		old     string
		partial bool
		entry   entry
		limit   int
		want    string
	}{
		{
			name:  "empty log",
			entry: entry{marker: mN, body: []byte("e")},
			limit: 100, want: mN + "\ne\n",
		},
		{
			name:  "everything fits",
			old:   m1 + "\na\n" + m2 + "\nb\n",
			entry: entry{marker: mN}, limit: 1000,
			want: m1 + "\na\n" + m2 + "\nb\n" + mN + "\n",
		},
		{
			name:  "oldest whole entries dropped",
			old:   m1 + "\naaaa\n" + m2 + "\nbbbb\n" + m3 + "\ncc\n",
			entry: entry{marker: mN, body: []byte("new\n")},
			limit: len(m3+"\ncc\n") + len(mN+"\nnew\n"),
			want:  m3 + "\ncc\n" + mN + "\nnew\n",
		},
		{
			name:  "one byte short drops one more entry",
			old:   m1 + "\naaaa\n" + m2 + "\nbbbb\n" + m3 + "\ncc\n",
			entry: entry{marker: mN, body: []byte("new\n")},
			limit: len(m3+"\ncc\n") + len(mN+"\nnew\n") - 1,
			want:  mN + "\nnew\n",
		},
		{
			name:  "imitated markers are not entry boundaries",
			old:   m1 + "\n== not a marker ==\n== 2026-13-01T00:00:00.000000Z x ==\n" + m2 + "\nb\n",
			entry: entry{marker: mN}, limit: len(m2+"\nb\n") + len(mN+"\n") + 10,
			want: m2 + "\nb\n" + mN + "\n",
		},
		{
			name:    "a partial first entry is never kept",
			old:     "tail of something\n" + m2 + "\nb\n",
			partial: true, entry: entry{marker: mN}, limit: 1000,
			want: m2 + "\nb\n" + mN + "\n",
		},
		{
			name:  "text before the first entry is kept while it fits",
			old:   "notes\n" + m2 + "\nb\n",
			entry: entry{marker: mN}, limit: 1000,
			want: "notes\n" + m2 + "\nb\n" + mN + "\n",
		},
		{
			name:  "missing final newline restored",
			old:   m1 + "\nno newline",
			entry: entry{marker: mN}, limit: 1000,
			want: m1 + "\nno newline\n" + mN + "\n",
		},
		{
			name:  "entry larger than the log keeps its marker and newest bytes",
			old:   m1 + "\nold\n",
			entry: entry{marker: mN, body: []byte("0123456789")},
			limit: len(mN) + 1 + 5,
			want:  mN + "\n6789\n",
		},
		{
			name:  "cut never splits a character",
			entry: entry{marker: mN, body: []byte("ééé")},
			limit: len(mN) + 1 + 4,
			want:  mN + "\né\n",
		},
		{
			name:  "stream entries end with their marker",
			old:   "a\n" + m1 + "\nb\n" + m2 + "\n",
			entry: entry{marker: mN, body: []byte("c"), trailer: true},
			limit: len("b\n"+m2+"\n") + len("c\n"+mN+"\n"),
			want:  "b\n" + m2 + "\nc\n" + mN + "\n",
		},
		{
			name:  "stream entries drop whole entries",
			old:   "a\n" + m1 + "\nb\n" + m2 + "\n",
			entry: entry{marker: mN, body: []byte("c"), trailer: true},
			limit: len("b\n"+m2+"\n") + len("c\n"+mN+"\n") - 1,
			want:  "c\n" + mN + "\n",
		},
		{
			name:  "oversize stream entry keeps its newest bytes and marker",
			entry: entry{marker: mN, body: []byte("0123456789\n"), trailer: true},
			limit: len(mN) + 1 + 4,
			want:  "789\n" + mN + "\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(compose([]byte(tc.old), tc.partial, tc.entry, tc.limit))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(got) > tc.limit {
				t.Errorf("%d bytes, limit %d", len(got), tc.limit)
			}
		})
	}
}

func TestAppendLogTrimsWholeEntries(t *testing.T) {
	root := t.TempDir()
	body := func(c byte) []byte { return append(bytes.Repeat([]byte{c}, 300<<10-1), '\n') }
	markers := []string{
		"== 2026-10-16T09:00:00.000000Z ok ==", "== 2026-10-16T09:01:00.000000Z ok ==",
		"== 2026-10-16T09:02:00.000000Z ok ==", "== 2026-10-16T09:03:00.000000Z ok ==",
		"== 2026-10-16T09:04:00.000000Z exit 1 ==",
	}
	var old []byte
	for i, m := range markers {
		old = append(append(old, m+"\n"...), body(byte('a'+i))...)
	}
	// A log larger than the limit, as if it was written by hand, is read from its tail.
	brainfix.WriteFile(t, root, "logs/s.log", old, 0o600)
	if err := appendLog(root, "s", entry{marker: mN, body: []byte("new\n")}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, "logs/s.log"))
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for i := 2; i < len(markers); i++ {
		want = append(append(want, markers[i]+"\n"...), body(byte('a'+i))...)
	}
	want = append(want, mN+"\nnew\n"...)
	if !bytes.Equal(got, want) || len(got) > maxLog {
		t.Errorf("log of %d bytes, want %d bytes", len(got), len(want))
	}
	entries, _ := os.ReadDir(filepath.Join(root, "logs"))
	if len(entries) != 1 {
		t.Errorf("logs/ holds %d files, want only the log", len(entries))
	}
}

func TestAppendLogRefusals(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, root string)
		err   string
	}{
		{
			name:  "logs is a file",
			setup: func(t *testing.T, root string) { brainfix.WriteFile(t, root, "logs", []byte("x"), 0o644) },
			err:   "logs/ is not a folder; move it away so bf can keep program logs there",
		},
		{
			name: "log is a symbolic link",
			setup: func(t *testing.T, root string) {
				brainfix.WriteFile(t, root, "elsewhere", []byte("x"), 0o644)
				os.Mkdir(filepath.Join(root, "logs"), 0o700)
				if err := os.Symlink("../elsewhere", filepath.Join(root, "logs/s.log")); err != nil {
					t.Fatal(err)
				}
			},
			err: "cannot read logs/s.log: it is a symbolic link; move it away",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.setup(t, root)
			err := appendLog(root, "s", entry{marker: mN})
			if err == nil || err.Error() != tc.err {
				t.Fatalf("error = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestRing(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		max    int
		want   string
	}{
		{"under", []string{"ab", "cd"}, 5, "abcd"},
		{"exact", []string{"ab", "cde"}, 5, "abcde"},
		{"slides", []string{"abc", "def"}, 5, "bcdef"},
		{"one large write", []string{"abcdefgh"}, 5, "defgh"},
		{"large write after data", []string{"xy", "abcde"}, 5, "abcde"},
		{"cut skips a partial character", []string{"aé", "bcd"}, 4, "bcd"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := ring{max: tc.max}
			for _, w := range tc.writes {
				r.Write([]byte(w))
			}
			if got := string(r.Bytes()); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLogPath(t *testing.T) {
	for name, want := range map[string]string{"calendar": "logs/calendar.log", "channel.chat.stream": "logs/channel.chat.stream.log"} {
		if got := LogPath(name); got != want {
			t.Errorf("LogPath(%q) = %q, want %q", name, got, want)
		}
	}
	if strings.Contains(LogPath("x"), "\\") {
		t.Error("log paths use slashes")
	}
}

func TestNote(t *testing.T) {
	root := t.TempDir()
	if err := Note(root, "feed", "output refused: not JSON\nsecond line"); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, LogPath("feed")))
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^== \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z output refused: not JSON second line ==\n$`).Match(data) {
		t.Fatalf("log %q", data)
	}
}
