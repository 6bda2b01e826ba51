package proc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/config"
)

// numbered returns n lines "a1".."an".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("a" + string(rune('0'+i%10)) + "\n")
	}
	return b.String()
}

// fourMiB returns a file of exactly size bytes: comment lines, then one argument line.
func sized(size int) string {
	last := "value\n"
	var b strings.Builder
	comment := "#" + strings.Repeat("c", 16000) + "\n"
	for b.Len()+len(comment)+len(last) <= size {
		b.WriteString(comment)
	}
	b.WriteString("#" + strings.Repeat("c", size-b.Len()-len(last)-2) + "\n")
	b.WriteString(last)
	return b.String()
}

func TestExpand(t *testing.T) {
	start := time.Date(2026, 10, 16, 9, 0, 0, 123456789, time.FixedZone("", 2*3600))
	vars := Vars{Home: "/home/u", Start: start, End: start.Add(time.Hour), Schema: "/tmp/s.json", Context: "/tmp/c.json"}
	tests := []struct {
		name  string
		files map[string]string
		cmd   []string
		vars  *Vars
		want  []string
		err   string
	}{
		{
			name: "placeholders",
			cmd:  []string{"prog", "{{brain}}/x", "--home={{home}}", "{{start}}..{{end}}", "{{schema}}", "{{context}}", "plain"},
			want: []string{"prog", "ROOT/x", "--home=/home/u", "2026-10-16T07:00:00.123456Z..2026-10-16T08:00:00.123456Z", "/tmp/s.json", "/tmp/c.json", "plain"},
		},
		{
			name: "values are not expanded again",
			cmd:  []string{"prog", "{{home}}{{brain}}"},
			vars: &Vars{Home: "{{start}}"},
			want: []string{"prog", "{{start}}ROOT"},
		},
		{name: "no start", cmd: []string{"prog", "x{{start}}"}, vars: &Vars{Home: "/h"}, err: "command[1] uses {{start}} but this run has no window start"},
		{name: "no end", cmd: []string{"prog", "{{end}}"}, vars: &Vars{}, err: "command[1] uses {{end}} but this run has no window end"},
		{name: "no home", cmd: []string{"prog", "{{home}}"}, vars: &Vars{}, err: "command[1] uses {{home}} but the home folder is unknown"},
		{name: "no schema", cmd: []string{"prog", "{{schema}}"}, vars: &Vars{}, err: "command[1] uses {{schema}} but this run has no reply schema"},
		{name: "no context", cmd: []string{"prog", "{{context}}"}, vars: &Vars{}, err: "command[1] uses {{context}} but this run has no context file"},
		{
			name: "unknown placeholder", cmd: []string{"prog", "ok", "{{nope}}"},
			err: "command[2]: unknown placeholder; use {{brain}}, {{home}}, {{start}}, {{end}}, {{schema}}, {{context}} or {{lines:FILE}}",
		},
		{
			name: "stray braces", cmd: []string{"prog", "a}}"},
			err: "command[1]: unknown placeholder; use {{brain}}, {{home}}, {{start}}, {{end}}, {{schema}}, {{context}} or {{lines:FILE}}",
		},
		{name: "lines inside an argument", cmd: []string{"prog", "--ids={{lines:ids.txt}}"}, err: "command[1]: {{lines:FILE}} must be a whole argument naming a brain-relative file"},
		{name: "lines with a parent path", cmd: []string{"prog", "{{lines:../ids.txt}}"}, err: "command[1]: {{lines:FILE}} must be a whole argument naming a brain-relative file"},
		{name: "lines with trailing text", cmd: []string{"prog", "{{lines:ids.txt}}x"}, err: "command[1]: {{lines:FILE}} must be a whole argument naming a brain-relative file"},
		{name: "NUL in argument", cmd: []string{"prog", "a\x00b"}, err: "command[1] contains a NUL character; remove it"},
		{name: "empty command", cmd: []string{}, err: "the command is empty; name a program"},
		{name: "placeholder in program", cmd: []string{"{{brain}}/x"}, err: "command[0] names the program and cannot hold placeholders"},
		{name: "128 arguments", cmd: append([]string{"prog"}, strings.Split(strings.Repeat("x,", 126)+"x", ",")...), want: append([]string{"prog"}, strings.Split(strings.Repeat("x,", 126)+"x", ",")...)},
		{name: "129 arguments", cmd: append([]string{"prog"}, strings.Split(strings.Repeat("x,", 127)+"x", ",")...), err: "the command has 129 arguments; at most 128 are allowed"},
		{name: "argument of 16384 characters", cmd: []string{"prog", strings.Repeat("é", 16384)}, want: []string{"prog", strings.Repeat("é", 16384)}},
		{name: "argument too long once expanded", cmd: []string{"prog", "{{brain}}" + strings.Repeat("x", 16384)}, err: "command[1] is longer than 16384 characters once expanded; shorten it"},
		{
			name:  "lines",
			files: map[string]string{"lists/ids.txt": "\xef\xbb\xbf# comment\n\n  first  \r\nsecond item\n\t# indented comment\n   \nlast"},
			cmd:   []string{"prog", "--x", "{{lines:lists/ids.txt}}", "{{brain}}"},
			want:  []string{"prog", "--x", "first", "second item", "last", "ROOT"},
		},
		{
			name:  "lines file without arguments",
			files: map[string]string{"ids.txt": "# nothing yet\n"},
			cmd:   []string{"prog", "{{lines:ids.txt}}", "end"},
			want:  []string{"prog", "end"},
		},
		{
			name:  "lines are not expanded",
			files: map[string]string{"ids.txt": "{{brain}}\n"},
			cmd:   []string{"prog", "{{lines:ids.txt}}"},
			want:  []string{"prog", "{{brain}}"},
		},
		{name: "lines file missing", cmd: []string{"prog", "{{lines:ids.txt}}"}, err: "{{lines:ids.txt}}: ids.txt does not exist; create it or correct the command"},
		{
			name:  "lines file is a folder",
			files: map[string]string{"ids.txt/x": "a"},
			cmd:   []string{"prog", "{{lines:ids.txt}}"}, err: "{{lines:ids.txt}}: ids.txt is not a regular file",
		},
		{
			name:  "lines file under a file",
			files: map[string]string{"ids.txt": "a"},
			cmd:   []string{"prog", "{{lines:ids.txt/x}}"}, err: "{{lines:ids.txt/x}}: ids.txt/x does not exist; create it or correct the command",
		},
		{
			name:  "lines file of exactly 4 MiB",
			files: map[string]string{"big.txt": sized(maxLinesFile)},
			cmd:   []string{"prog", "{{lines:big.txt}}"},
			want:  []string{"prog", "value"},
		},
		{
			name:  "lines file over 4 MiB",
			files: map[string]string{"big.txt": sized(maxLinesFile + 1)},
			cmd:   []string{"prog", "{{lines:big.txt}}"},
			err:   "{{lines:big.txt}}: big.txt is larger than 4 MiB; shorten it",
		},
		{
			name:  "line of 16384 characters",
			files: map[string]string{"l.txt": "a\n" + strings.Repeat("é", 16384) + "\n"},
			cmd:   []string{"prog", "{{lines:l.txt}}"},
			want:  []string{"prog", "a", strings.Repeat("é", 16384)},
		},
		{
			name:  "line of 16385 characters",
			files: map[string]string{"l.txt": "a\n" + strings.Repeat("é", 16385) + "\n"},
			cmd:   []string{"prog", "{{lines:l.txt}}"},
			err:   "l.txt line 2 is longer than 16384 characters; shorten it",
		},
		{
			name:  "comment of 16385 characters",
			files: map[string]string{"l.txt": "#" + strings.Repeat("x", 16384) + "\n"},
			cmd:   []string{"prog", "{{lines:l.txt}}"},
			err:   "l.txt line 1 is longer than 16384 characters; shorten it",
		},
		{
			name:  "lines filling 128 arguments",
			files: map[string]string{"n.txt": numbered(125)},
			cmd:   []string{"prog", "{{lines:n.txt}}", "x", "y"},
			want:  append(append([]string{"prog"}, strings.Fields(numbered(125))...), "x", "y"),
		},
		{
			name:  "lines passing 128 arguments",
			files: map[string]string{"n.txt": "# head\n" + numbered(126)},
			cmd:   []string{"prog", "{{lines:n.txt}}", "x", "y"},
			err:   "n.txt line 127: the command would have more than 128 arguments; shorten n.txt",
		},
		{
			name:  "two lines files share the limit",
			files: map[string]string{"a.txt": numbered(100), "b.txt": numbered(28)},
			cmd:   []string{"prog", "{{lines:a.txt}}", "{{lines:b.txt}}"},
			err:   "b.txt line 28: the command would have more than 128 arguments; shorten b.txt",
		},
		{
			name:  "invalid UTF-8",
			files: map[string]string{"u.txt": "ok\n# fine\nbad \xff\n"},
			cmd:   []string{"prog", "{{lines:u.txt}}"},
			err:   "u.txt line 3 is not valid UTF-8; save the file as UTF-8",
		},
		{
			name:  "invalid UTF-8 in a comment",
			files: map[string]string{"u.txt": "# \xc3\n"},
			cmd:   []string{"prog", "{{lines:u.txt}}"},
			err:   "u.txt line 1 is not valid UTF-8; save the file as UTF-8",
		},
		{
			name:  "NUL in a line",
			files: map[string]string{"z.txt": "a\nb\x00c\n"},
			cmd:   []string{"prog", "{{lines:z.txt}}"},
			err:   "z.txt line 2 contains a NUL character; remove it",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, data := range tc.files {
				brainfix.WriteFile(t, root, rel, []byte(data), 0o644)
			}
			v := vars
			if tc.vars != nil {
				v = *tc.vars
			}
			got, err := Expand(root, config.Command(tc.cmd), v)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Expand: %v", err)
			}
			for i := range tc.want {
				tc.want[i] = strings.ReplaceAll(tc.want[i], "ROOT", root)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandLinesSymlink(t *testing.T) {
	tests := []struct {
		name, arg, err string
	}{
		{"file link", "{{lines:link.txt}}", "{{lines:link.txt}}: link.txt is a symbolic link; put the file itself in the brain"},
		{"folder link", "{{lines:dir/ids.txt}}", "{{lines:dir/ids.txt}}: dir/ids.txt passes through the symbolic link dir; keep the files themselves in the brain"},
	}
	root := t.TempDir()
	outside := t.TempDir()
	brainfix.WriteFile(t, outside, "ids.txt", []byte("secret\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "ids.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "dir")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Expand(root, config.Command{"prog", tc.arg}, Vars{})
			if err == nil || err.Error() != tc.err {
				t.Fatalf("error = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestExpandMissingIsNotExist(t *testing.T) {
	_, err := Expand(t.TempDir(), config.Command{"prog", "{{lines:x.txt}}"}, Vars{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
}

func FuzzExpandLines(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "# c\n\n x \r\n", "\xef\xbb\xbfa", "a\x00", "\xff", numbered(130), "#" + strings.Repeat("y", 16400)} {
		f.Add([]byte(s))
	}
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(root, "f.txt"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Expand(root, config.Command{"prog", "{{lines:f.txt}}"}, Vars{})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt line ") && !strings.HasPrefix(err.Error(), "{{lines:f.txt}}: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(got) > config.MaxArgs || got[0] != "prog" {
			t.Fatalf("argv %d items, first %q", len(got), got[0])
		}
		var want []string
		text := strings.TrimPrefix(string(data), "\ufeff")
		for _, l := range strings.Split(text, "\n") {
			l = strings.TrimSpace(l)
			if l != "" && !strings.HasPrefix(l, "#") {
				want = append(want, l)
			}
		}
		if diff := cmp.Diff(want, got[1:], cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") })); diff != "" {
			t.Fatalf("(-want +got):\n%s", diff)
		}
		for _, a := range got[1:] {
			if !utf8.ValidString(a) || strings.IndexByte(a, 0) >= 0 || utf8.RuneCountInString(a) > config.MaxArgChars {
				t.Fatalf("bad argument %q", a)
			}
		}
	})
}
