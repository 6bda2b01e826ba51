package yamlx

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCoreSchema(t *testing.T) {
	src := `
a: yes
b: no
c: on
d: true
e: 017
f: 1:30
g: 2026-09-27
h: ~
i: "true"
j: 0x1F
k: 0o17
l: 1.5e3
m: FALSE
n: 99999999999999999999
o: !!str 12
p:
q: [1, two]
`
	got, err := Parse("bf.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	huge, _ := new(big.Int).SetString("99999999999999999999", 10)
	want := map[string]any{
		"a": "yes", "b": "no", "c": "on", "d": true, "e": int64(17), "f": "1:30",
		"g": "2026-09-27", "h": nil, "i": "true", "j": int64(31), "k": int64(15),
		"l": 1500.0, "m": false, "n": huge, "o": "12", "p": nil, "q": []any{int64(1), "two"},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b *big.Int) bool { return a.Cmp(b) == 0 })); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

func TestParseRejects(t *testing.T) {
	deep := strings.Repeat("[", 33) + strings.Repeat("]", 33)
	many := "[" + strings.Repeat("1,", 20001) + "1]"
	tests := []struct {
		name, src, want string
	}{
		{"anchor", "a: &x 1\nb: 2\n", "f.yaml: a: YAML anchors and aliases are not allowed"},
		{"alias", "a: &x 1\nb: *x\n", "f.yaml: a: YAML anchors and aliases are not allowed"},
		{"duplicate", "a: 1\nb:\n  c: 1\n  c: 2\n", "f.yaml: b.c: duplicate key"},
		{"unsafe tag", "a: !!python/object:os.system x\n", "f.yaml: a: only the YAML core tags are allowed"},
		{"custom tag", "a: !secret x\n", "f.yaml: a: only the YAML core tags are allowed"},
		{"bad tag value", "a: !!int x\n", "f.yaml: a: value does not match its tag"},
		{"merge", "a: {<<: {b: 1}}\n", "f.yaml: a: YAML merge keys are not allowed"},
		{"two docs", "a: 1\n---\nb: 2\n", "f.yaml: line 2: only one YAML document is allowed"},
		{"complex key", "? [a]\n: 1\n", "f.yaml: line 1: mapping keys must be plain scalars"},
		{"depth", deep, "f.yaml: " + strings.TrimSuffix(strings.Repeat("0.", 32), ".") + ": document nests deeper than 32 levels"},
		{"events", many, "f.yaml: 19998: document exceeds 20,000 YAML events"},
		{"syntax", "a: [1\n", "f.yaml: invalid YAML at line 1"},
		{"secret not echoed", "password: \"hunter2\n", "f.yaml: invalid YAML at line 2"},
		{"tab indent", "version: 8\nname: a\nfields:\n\towner:\n\t\ttype: x\n", "f.yaml: invalid YAML at line 4, column 1: a tab indents the line; YAML indents with spaces only"},
		{"tab after spaces", "a:\n  b: 1\n  \tc: 2\n", "f.yaml: invalid YAML at line 3, column 3: a tab indents the line; YAML indents with spaces only"},
		{"tab in a list", "a:\n\t- 1\n", "f.yaml: invalid YAML at line 2, column 1: a tab indents the line; YAML indents with spaces only"},
		{"tab after the error", "a: [1\nb: 2\nc:\n\td: 1\n", "f.yaml: invalid YAML at line 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse accepted %q", tt.src)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	_, err := Parse("f.yaml", make([]byte, MaxBytes+1))
	var e *Error
	if !errors.As(err, &e) || e.Reason != "file exceeds 1 MiB" {
		t.Fatalf("err = %v", err)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "# only a comment\n", "---\n"} {
		v, err := Parse("f", []byte(src))
		if err != nil || v != nil {
			t.Errorf("Parse(%q) = %v, %v", src, v, err)
		}
	}
}

type program struct {
	Command []string `json:"command"`
	Timeout *int     `json:"timeout"`
	Ratio   float64  `json:"ratio"`
	Enabled *bool    `json:"enabled"`
	Extra   any      `json:"extra"`
}

type config struct {
	Version int                `json:"version"`
	Name    string             `json:"name"`
	Sensors map[string]program `json:"sensors"`
}

func TestDecode(t *testing.T) {
	src := "version: 8\nname: acme\nsensors:\n  git:\n    command: [a, b]\n    timeout: 30\n    ratio: 2\n    extra: {x: [1]}\n"
	var c config
	if err := Decode("bf.yaml", []byte(src), &c, Strict); err != nil {
		t.Fatal(err)
	}
	timeout := 30
	want := config{Version: 8, Name: "acme", Sensors: map[string]program{
		"git": {Command: []string{"a", "b"}, Timeout: &timeout, Ratio: 2, Extra: map[string]any{"x": []any{int64(1)}}},
	}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("Decode mismatch (-want +got):\n%s", diff)
	}
}

// limits is embedded in sensor, which names one of its keys itself.
type limits struct {
	Timeout int   `json:"timeout"`
	Bytes   int64 `json:"max_bytes"`
}

type sensor struct {
	limits
	Bytes string `json:"max_bytes"`
	Mode  string `json:"mode"`
}

func TestDecodeEmbedded(t *testing.T) {
	var got map[string]sensor
	if err := Decode("bf.yaml", []byte("git: {timeout: 30, max_bytes: big, mode: window}\n"), &got, Strict); err != nil {
		t.Fatal(err)
	}
	want := map[string]sensor{"git": {limits: limits{Timeout: 30}, Bytes: "big", Mode: "window"}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(sensor{})); diff != "" {
		t.Errorf("Decode mismatch (-want +got):\n%s", diff)
	}
	err := Decode("bf.yaml", []byte("git: {timeout: x}\n"), &got, Strict)
	if want := "bf.yaml: git.timeout: expected an integer"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		src  string
		mode Mode
		want string
	}{
		{"name: 123\n", Strict, "bf.yaml: name: expected a string"},
		{"version: \"8\"\n", Strict, "bf.yaml: version: expected an integer"},
		{"version: 8.0\n", Strict, "bf.yaml: version: expected an integer"},
		{"sensors:\n  git:\n    command: [a, [b]]\n", Strict, "bf.yaml: sensors.git.command.1: expected a string"},
		{"sensors:\n  git:\n    enabled: yes\n", Strict, "bf.yaml: sensors.git.enabled: expected true or false"},
		{"sensors:\n  git:\n    tmeout: 3\n", Strict, "bf.yaml: sensors.git.tmeout: unknown key"},
		{"sensors: [a]\n", Strict, "bf.yaml: sensors: expected a mapping"},
		{"sensors:\n  git:\n    ratio: .nan\n", Strict, "bf.yaml: sensors.git.ratio: expected a finite number"},
	}
	for _, tt := range tests {
		var c config
		err := Decode("bf.yaml", []byte(tt.src), &c, tt.mode)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%q) error = %v, want %q", tt.src, err, tt.want)
		}
	}
	var c config
	if err := Decode("bf.yaml", []byte("name: a\nowner: x\n"), &c, lenient); err != nil || c.Name != "a" {
		t.Errorf("Lenient decode = %v, %+v", err, c)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: [1, {b: c}]\n", "a: &x 1\nb: *x\n", "---\ntitle: x\n", "? a\n: b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse("f", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var anyv any
		if err := Assign("f", v, &anyv, Strict); err != nil {
			t.Fatal(err)
		}
	})
}
