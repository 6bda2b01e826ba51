package brain

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/yamlx"
)

func TestRegistryFile(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"default", nil, "~/.config/bf/config.yaml"},
		{"xdg absolute", map[string]string{"XDG_CONFIG_HOME": "/etc/xdg-test"}, "/etc/xdg-test/bf/config.yaml"},
		{"xdg empty ignored", map[string]string{"XDG_CONFIG_HOME": ""}, "~/.config/bf/config.yaml"},
		{"xdg relative ignored", map[string]string{"XDG_CONFIG_HOME": "conf"}, "~/.config/bf/config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.vars = tt.vars
			got, err := f.env().RegistryFile()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.rel(got)); diff != "" {
				t.Errorf("RegistryFile (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := (Env{Getenv: func(string) string { return "" }}).RegistryFile(); err == nil {
		t.Error("no home: want an error")
	}
}

func TestLoadRegistry(t *testing.T) {
	const file = "~/.config/bf/config.yaml"
	long := "/" + strings.Repeat("a", 4096)
	tests := []struct {
		name    string
		content *string // nil: no file
		want    map[string]string
		wantErr string
	}{
		{name: "missing file", want: map[string]string{}},
		{name: "empty file", content: ptr(""), want: map[string]string{}},
		{name: "comments only", content: ptr("# mine\n"), want: map[string]string{}},
		{name: "null brains", content: ptr("brains:\n"), want: map[string]string{}},
		{name: "absolute and tilde", content: ptr("brains:\n  work:\n    path: /srv/work\n  team-2:\n    path: ~/team\n  home:\n    path: \"~\"\n"),
			want: map[string]string{"work": "/srv/work", "team-2": "~/team", "home": "~"}},
		{name: "longest path", content: ptr("brains:\n  a:\n    path: " + long[:4096] + "\n"), want: map[string]string{"a": long[:4096]}},
		{name: "unknown top key", content: ptr("collect: true\n"), wantErr: file + ": collect: unknown key"},
		{name: "unknown entry key", content: ptr("brains:\n  a:\n    path: /a\n    collect: true\n"), wantErr: file + ": brains.a.collect: unknown key"},
		{name: "top level list", content: ptr("- a\n"), wantErr: file + ": expected a mapping"},
		{name: "brains list", content: ptr("brains: [a]\n"), wantErr: file + ": brains: expected a mapping"},
		{name: "invalid name", content: ptr("brains:\n  Work:\n    path: /a\n"), wantErr: file + ": brains.Work: brain names must match ^[a-z][a-z0-9-]{0,63}$"},
		{name: "name starting with digit", content: ptr("brains:\n  1a:\n    path: /a\n"), wantErr: file + ": brains.1a: brain names must match ^[a-z][a-z0-9-]{0,63}$"},
		{name: "null entry", content: ptr("brains:\n  a:\n"), wantErr: file + ": brains.a.path: field required"},
		{name: "missing path", content: ptr("brains:\n  a: {}\n"), wantErr: file + ": brains.a.path: field required"},
		{name: "path not a string", content: ptr("brains:\n  a:\n    path: 1\n"), wantErr: file + ": brains.a.path: expected a string"},
		{name: "empty path", content: ptr("brains:\n  a:\n    path: \"\"\n"), wantErr: file + ": brains.a.path: must be 1 to 4096 characters"},
		{name: "path too long", content: ptr("brains:\n  a:\n    path: " + long + "\n"), wantErr: file + ": brains.a.path: must be 1 to 4096 characters"},
		{name: "control character", content: ptr("brains:\n  a:\n    path: \"/a\\tb\"\n"), wantErr: file + ": brains.a.path: must not contain control characters"},
		{name: "relative path", content: ptr("brains:\n  a:\n    path: brains/a\n"), wantErr: file + ": brains.a.path: registered brain paths must be absolute or start with ~"},
		{name: "dot path", content: ptr("brains:\n  a:\n    path: ./a\n"), wantErr: file + ": brains.a.path: registered brain paths must be absolute or start with ~"},
		{name: "other user's home", content: ptr("brains:\n  a:\n    path: ~bob/a\n"), wantErr: file + ": brains.a.path: registered brain paths must be absolute or start with ~/ (~user is not expanded)"},
		{name: "duplicate key", content: ptr("brains:\n  a:\n    path: /a\n  a:\n    path: /b\n"), wantErr: file + ": "},
		{name: "over 1 MiB", content: ptr("# " + strings.Repeat("x", yamlx.MaxBytes) + "\n"), wantErr: file + ": the registry exceeds 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.content != nil {
				f.write(".config/bf/config.yaml", *tt.content)
			}
			r, err := f.env().LoadRegistry()
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(f.errText(err), tt.wantErr) {
					t.Fatalf("error = %q, want prefix %q", f.errText(err), tt.wantErr)
				}
				if KindOf(err) != failure {
					t.Errorf("kind = %v, want Failure", KindOf(err))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, r.Brains); diff != "" {
				t.Errorf("Brains (-want +got):\n%s", diff)
			}
			if got := f.rel(r.File); got != file {
				t.Errorf("File = %q", got)
			}
		})
	}
}

func TestLoadRegistryErrorsNeverQuotePaths(t *testing.T) {
	f := newFixture(t)
	f.write(".config/bf/config.yaml", "brains:\n  a:\n    path: secret-token/x\n")
	_, err := f.env().LoadRegistry()
	if err == nil || strings.Contains(err.Error(), "secret-token") {
		t.Fatalf("error = %v", err)
	}
	var ye *yamlx.Error
	if !errors.As(err, &ye) || ye.Path != "brains.a.path" {
		t.Errorf("want a *yamlx.Error at brains.a.path, got %#v", err)
	}
}

func TestLoadRegistrySpecialFiles(t *testing.T) {
	t.Run("symlink", func(t *testing.T) {
		f := newFixture(t)
		target := f.write("elsewhere.yaml", "brains: {}\n")
		f.symlink(target, ".config/bf/config.yaml")
		_, err := f.env().LoadRegistry()
		want := "~/.config/bf/config.yaml: the registry must be a regular file, not a symlink; link its parent folder instead"
		if diff := cmp.Diff(want, f.errText(err)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("linked parent folder", func(t *testing.T) {
		f := newFixture(t)
		f.write("dotfiles/bf/config.yaml", "brains:\n  a:\n    path: /a\n")
		f.symlink(f.path("dotfiles/bf"), ".config/bf")
		r, err := f.env().LoadRegistry()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]string{"a": "/a"}, r.Brains); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		f := newFixture(t)
		os.MkdirAll(f.path(".config/bf"), 0o700)
		if err := syscall.Mkfifo(f.path(".config/bf/config.yaml"), 0o600); err != nil {
			t.Skip("mkfifo:", err)
		}
		_, err := f.env().LoadRegistry()
		if diff := cmp.Diff("~/.config/bf/config.yaml: the registry is not a regular file", f.errText(err)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("folder", func(t *testing.T) {
		f := newFixture(t)
		os.MkdirAll(f.path(".config/bf/config.yaml"), 0o700)
		_, err := f.env().LoadRegistry()
		if err == nil {
			t.Fatal("want an error")
		}
	})
}

func TestLeadingComments(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"brains: {}\n", ""},
		{"# a\n# b\nbrains: {}\n# c\n", "# a\n# b\n"},
		{"# a\n\n# b\n", "# a\n"},
		{"#no newline", "#no newline\n"},
		{"# crlf\r\nbrains: {}\r\n", "# crlf\r\n"},
		{"  # indented\n", ""},
	}
	for _, tt := range tests {
		if got := leadingComments([]byte(tt.in)); got != tt.want {
			t.Errorf("leadingComments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestYAMLScalarRoundTrip(t *testing.T) {
	for _, p := range []string{
		"/home/me/brain", "~/brain", "~", "/a b/c", "/it's", `/q"uote`, `/back\slash`, "/a: b", "/a #b",
		"/é/ß/日本", "/zero\u200bwidth", "/line\u2028sep", "/emoji😀", "/true", "/-", "/[x]", "/{x}", "/*x", "/!x", "/&x",
	} {
		doc := "brains:\n  a:\n    path: " + yamlScalar(p) + "\n"
		got, err := parseRegistry("t", []byte(doc))
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		if got["a"] != p {
			t.Errorf("%q read back as %q (%s)", p, got["a"], yamlScalar(p))
		}
	}
	if got := yamlScalar("/home/me/brain"); got != "/home/me/brain" {
		t.Errorf("simple paths stay plain, got %s", got)
	}
}

func ptr[T any](v T) *T { return &v }

func readFile(t *testing.T, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mode(t *testing.T, p string) os.FileMode {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestRegisterNew(t *testing.T) {
	f := newFixture(t)
	f.brain("brains/work", "work")
	f.wd = f.path("brains")
	env := f.env()
	r, err := env.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Register("work", "", RegisterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := Result{Brain: "work", Path: f.path("brains/work"), Config: f.path(".config/bf/config.yaml")}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	got := f.rel(readFile(t, r.File))
	wantFile := defaultHeader + "brains:\n  work:\n    path: ~/brains/work\n"
	if diff := cmp.Diff(wantFile, got); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	if m := mode(t, r.File); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	if m := mode(t, filepath.Dir(r.File)); m != 0o700 {
		t.Errorf("folder mode %o, want 700", m)
	}
	if diff := cmp.Diff(map[string]string{"work": f.path("brains/work")}, r.Brains); diff != "" {
		t.Errorf("Brains (-want +got):\n%s", diff)
	}
	// What Register wrote loads back.
	r2, err := env.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.Brains, r2.Brains); diff != "" {
		t.Errorf("reloaded (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(filepath.Dir(r.File))
	if len(entries) != 1 {
		t.Errorf("registry folder holds %d entries, want only config.yaml (no temporary files)", len(entries))
	}
}

func TestRegisterKeepsLeadingComments(t *testing.T) {
	f := newFixture(t)
	f.brain("b", "b")
	f.write(".config/bf/config.yaml", "# my machine\n# keep me\nbrains:\n  # lost comment\n  a:\n    path: /gone/a # lost too\n")
	os.Chmod(f.path(".config/bf/config.yaml"), 0o644)
	r, err := f.env().LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(f.path("b"), "b", RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "# my machine\n# keep me\nbrains:\n  a:\n    path: /gone/a\n  b:\n    path: ~/b\n"
	if diff := cmp.Diff(want, f.rel(readFile(t, r.File))); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	if m := mode(t, r.File); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
}

func TestRegisterRules(t *testing.T) {
	type setup func(f *fixture)
	tests := []struct {
		name      string
		setup     setup
		path      string // below home
		argName   string
		want      Result // Path and Config filled in by the test; Replaced paths relative
		wantFile  map[string]string
		wantErr   string
		wantKind  Kind
		unchanged bool
	}{
		{
			name:      "same brain again is a no-op",
			setup:     func(f *fixture) { f.brain("w", "work"); f.register("work", f.path("w")) },
			path:      "w",
			want:      Result{Brain: "work", Unchanged: true},
			wantFile:  map[string]string{"work": "~/w"},
			unchanged: true,
		},
		{
			name:      "same brain written with ~ is a no-op",
			setup:     func(f *fixture) { f.brain("w", "work"); f.register("work", "~/w") },
			path:      "w",
			want:      Result{Brain: "work", Unchanged: true},
			wantFile:  map[string]string{"work": "~/w"},
			unchanged: true,
		},
		{
			name:     "moved brain replaces the absent entry",
			setup:    func(f *fixture) { f.brain("new/w", "work"); f.register("work", f.path("old/w"), "other", "/gone") },
			path:     "new/w",
			want:     Result{Brain: "work", Replaced: []Registration{{Brain: "work", Path: "~/old/w"}}},
			wantFile: map[string]string{"work": "~/new/w", "other": "/gone"},
		},
		{
			name: "same folder by another path is replaced",
			setup: func(f *fixture) {
				f.brain("real/w", "work")
				f.symlink(f.path("real"), "link")
				f.register("work", f.path("link/w"))
			},
			path:     "real/w",
			want:     Result{Brain: "work", Replaced: []Registration{{Brain: "work", Path: "~/link/w"}}},
			wantFile: map[string]string{"work": "~/real/w"},
		},
		{
			name:     "renamed brain replaces its entry under the old name",
			setup:    func(f *fixture) { f.brain("w", "work"); f.register("old-name", f.path("w")) },
			path:     "w",
			want:     Result{Brain: "work", Replaced: []Registration{{Brain: "old-name", Path: "~/w"}}},
			wantFile: map[string]string{"work": "~/w"},
		},
		{
			name:     "name used by another folder",
			setup:    func(f *fixture) { f.brain("w", "work"); f.brain("clone", "work"); f.register("work", f.path("w")) },
			path:     "clone",
			wantErr:  "another folder is already registered as work (~/w); names are unique on this machine: rename one brain in its bf.yaml, or move that folder away and register again",
			wantKind: failure,
			wantFile: map[string]string{"work": "~/w"},
		},
		{
			name: "name used by a folder that is no longer a brain",
			setup: func(f *fixture) {
				f.brain("w", "work")
				os.MkdirAll(f.path("plain"), 0o700)
				f.register("work", f.path("plain"))
			},
			path:     "w",
			wantErr:  "another folder is already registered as work (~/plain); names are unique on this machine: rename one brain in its bf.yaml, or move that folder away and register again",
			wantKind: failure,
			wantFile: map[string]string{"work": "~/plain"},
		},
		{
			name:     "--name differs from bf.yaml",
			setup:    func(f *fixture) { f.brain("w", "work") },
			path:     "w",
			argName:  "team",
			wantErr:  "--name team does not match the name work in ~/w/bf.yaml; change bf.yaml to rename the brain",
			wantKind: Invalid,
		},
		{
			name:     "--name invalid",
			setup:    func(f *fixture) { f.brain("w", "work") },
			path:     "w",
			argName:  "Team",
			wantErr:  "--name: brain names must match ^[a-z][a-z0-9-]{0,63}$",
			wantKind: Invalid,
		},
		{
			name:     "--name equal to bf.yaml",
			setup:    func(f *fixture) { f.brain("w", "work") },
			path:     "w",
			argName:  "work",
			want:     Result{Brain: "work"},
			wantFile: map[string]string{"work": "~/w"},
		},
		{
			name:     "not a brain",
			setup:    func(f *fixture) { os.MkdirAll(f.path("plain"), 0o700) },
			path:     "plain",
			wantErr:  "~/plain: no bf.yaml here; this is not a brain folder",
			wantKind: failure,
		},
		{
			name:     "absent folder",
			setup:    func(f *fixture) {},
			path:     "nowhere",
			wantErr:  "~/nowhere: brain folder does not exist",
			wantKind: failure,
		},
		{
			name: "registry is a symlink",
			setup: func(f *fixture) {
				f.brain("w", "work")
				f.write("other.yaml", "")
				f.symlink(f.path("other.yaml"), ".config/bf/config.yaml")
			},
			path:     "w",
			wantErr:  "~/.config/bf/config.yaml: the registry must be a regular file, not a symlink; link its parent folder instead",
			wantKind: failure,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.setup(f)
			env := f.env()
			file := f.path(".config/bf/config.yaml")
			before, _ := os.Stat(file)
			r := &Registry{File: file, Brains: map[string]string{}, env: env}
			res, err := r.Register(f.path(tt.path), tt.argName, RegisterOptions{})
			if tt.wantErr != "" {
				if diff := cmp.Diff(tt.wantErr, f.errText(err)); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if KindOf(err) != tt.wantKind {
					t.Errorf("kind = %v, want %v", KindOf(err), tt.wantKind)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				tt.want.Path = f.path(tt.path)
				tt.want.Config = file
				for i := range res.Replaced {
					res.Replaced[i].Path = f.rel(res.Replaced[i].Path)
				}
				if diff := cmp.Diff(tt.want, res); diff != "" {
					t.Errorf("Result (-want +got):\n%s", diff)
				}
			}
			if tt.wantFile != nil {
				reg, err := env.LoadRegistry()
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for k, v := range reg.Brains {
					got[k] = f.rel(v)
				}
				if diff := cmp.Diff(tt.wantFile, got); diff != "" {
					t.Errorf("registry (-want +got):\n%s", diff)
				}
			}
			if tt.unchanged {
				after, err := os.Stat(file)
				if err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
					t.Errorf("an unchanged registration rewrote the file")
				}
			}
		})
	}
}

func TestRegisterCollect(t *testing.T) {
	f := newFixture(t)
	root := f.brain("w", "work")
	env := f.env()
	r, err := env.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	ok, err := env.Trusted(root)
	if err != nil || ok {
		t.Fatalf("before: Trusted = %v, %v", ok, err)
	}
	res, err := r.Register(root, "", RegisterOptions{Collect: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Collect {
		t.Error("Result.Collect = false")
	}
	ok, err = env.Trusted(root)
	if err != nil || !ok {
		t.Fatalf("after: Trusted = %v, %v", ok, err)
	}
	// The registry itself holds no trust key: format 8 has none.
	if strings.Contains(readFile(t, r.File), "collect") {
		t.Error("registry mentions collect")
	}
	// Registering again without --collect keeps the trust.
	if _, err := r.Register(root, "", RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if ok, _ := env.Trusted(root); !ok {
		t.Error("trust lost by a plain re-registration")
	}
}

func TestRegisterConcurrent(t *testing.T) {
	f := newFixture(t)
	env := f.env()
	const n = 8
	want := map[string]string{}
	for i := range n {
		name := "b" + string(rune('a'+i))
		f.brain(name, name)
		want[name] = f.path(name)
	}
	errs := make(chan error, n)
	for name := range want {
		go func() {
			r, err := env.LoadRegistry()
			if err == nil {
				_, err = r.Register(f.path(name), "", RegisterOptions{})
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	r, err := env.LoadRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, r.Brains); diff != "" {
		t.Errorf("a concurrent registration was lost (-want +got):\n%s", diff)
	}
}
