package e2e

// The standalone-module test: every command module must build on its own, outside this
// checkout's go.work, from the libbf version its go.mod requires, the way
// `go install github.com/bfgo/bf/bf-NAME@vX.Y.Z` builds it. The test serves the checkout's
// libbf at that version from a module proxy folder it writes (GOPROXY=file://…), and takes
// every other module from the local module cache, then from the usual proxy.

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/brainfix"
)

const libbfPath = "github.com/bfgo/bf/libbf"

var tidy = flag.Bool("tidy", false, "TestStandalone: rewrite the command modules' go.mod and go.sum with go mod tidy instead of checking them")

func TestStandalone(t *testing.T) {
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(self))
	mods, err := filepath.Glob(filepath.Join(root, "bf*", "go.mod"))
	if err != nil || len(mods) == 0 {
		t.Fatalf("no command modules under %s", root)
	}
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	served := map[string]bool{}
	env := standaloneEnv(t, proxy, filepath.Join(tmp, "modcache"))
	// standalone checks one module outside the workspace with check, after serving the
	// libbf version it requires (or tidies it, with -tidy), then checks that its go.sum
	// already held every module the check needed except libbf, whose sum exists only once
	// it is tagged.
	standalone := func(t *testing.T, dir string, check func(work string)) {
		version := requiredLibbf(t, dir)
		if !served[version] {
			serveModule(t, proxy, filepath.Join(root, "libbf"), libbfPath, version)
			served[version] = true
		}
		if *tidy {
			tidyModule(t, dir, env)
			return
		}
		work := brainfix.Copy(t, dir, false)
		check(work)
		before := lines(t, filepath.Join(dir, "go.sum"))
		for l := range lines(t, filepath.Join(work, "go.sum")) {
			if !before[l] && !strings.HasPrefix(l, libbfPath+" ") {
				t.Errorf("go.sum lacks %s (run go test ./e2e -run TestStandalone -tidy)", l)
			}
		}
	}
	for _, m := range mods {
		dir := filepath.Dir(m)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(tmp, "bin", name)
			standalone(t, dir, func(work string) {
				goCmd(t, work, env, "build", "-trimpath", "-o", bin, ".")
				out, err := exec.Command(bin, "--version").CombinedOutput()
				if err != nil || !strings.HasSuffix(string(out), " dev\n") {
					t.Errorf("%s --version: %v\n%s", name, err, out)
				}
			})
		})
	}
	// The other modules that import libbf stand alone too: every package and test of
	// theirs type-checks outside the workspace.
	for _, name := range []string{"bench", "examples", "e2e"} {
		t.Run(name, func(t *testing.T) {
			standalone(t, filepath.Join(root, name), func(work string) { goCmd(t, work, env, "vet", "./...") })
		})
	}
}

// standaloneEnv builds outside the workspace with a private module cache, so the libbf
// served here never mixes with another run's: modules come from the proxy folder, then the
// machine's module cache (offline), then GOPROXY.
func standaloneEnv(t *testing.T, proxy, modcache string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GOWORK", "GOFLAGS", "GOPROXY", "GOMODCACHE", "GONOSUMDB", "GOTOOLCHAIN":
			continue
		}
		env = append(env, kv)
	}
	goenv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		return strings.TrimSpace(string(out))
	}
	proxies := []string{"file://" + filepath.ToSlash(proxy), "file://" + filepath.ToSlash(filepath.Join(goenv("GOMODCACHE"), "cache", "download"))}
	if p := goenv("GOPROXY"); p != "" {
		proxies = append(proxies, p)
	}
	return append(env,
		"GOWORK=off",
		"GOFLAGS="+strings.TrimSpace(goenv("GOFLAGS")+" -mod=mod -modcacherw"),
		"GOPROXY="+strings.Join(proxies, ","),
		"GOMODCACHE="+modcache,
		"GONOSUMDB=github.com/bfgo/bf",
		"GOTOOLCHAIN=local",
	)
}

// requiredLibbf is the libbf version a command module's go.mod requires.
func requiredLibbf(t *testing.T, dir string) string {
	out := goCmd(t, dir, append(os.Environ(), "GOWORK=off"), "mod", "edit", "-json")
	var mod struct {
		Require []struct{ Path, Version string }
		Replace []struct{ Old struct{ Path string } }
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		t.Fatal(err)
	}
	for _, r := range mod.Replace {
		if strings.HasPrefix(r.Old.Path, "github.com/bfgo/bf") {
			t.Errorf("go.mod replaces %s: installs from the proxy would not see it", r.Old.Path)
		}
	}
	for _, r := range mod.Require {
		if r.Path == libbfPath {
			return r.Version
		}
	}
	t.Fatalf("%s/go.mod does not require %s", filepath.Base(dir), libbfPath)
	return ""
}

// serveModule writes one version of the module in src to a GOPROXY folder: @v/list, .info,
// .mod and the .zip of its files (nested modules and hidden folders left out).
func serveModule(t *testing.T, proxy, src, path, version string) {
	dir := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info := `{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`
	list, _ := os.ReadFile(filepath.Join(dir, "list"))
	for name, data := range map[string][]byte{
		"list":            append(list, version+"\n"...),
		version + ".info": []byte(info),
		version + ".mod":  gomod,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || exists(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		w, err := zw.Create(path + "@" + version + "/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, version+".zip"), buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// tidyModule rewrites a command module's go.mod and go.sum against the served libbf, then
// drops libbf's own sum lines, which change with every libbf edit until it is tagged.
func tidyModule(t *testing.T, dir string, env []string) {
	goCmd(t, dir, env, "mod", "tidy")
	sum := filepath.Join(dir, "go.sum")
	data, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(l, libbfPath+" ") {
			keep = append(keep, l)
		}
	}
	if err := os.WriteFile(sum, []byte(strings.Join(keep, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

func goCmd(t *testing.T, dir string, env []string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir, cmd.Env = dir, env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return out
}

func lines(t *testing.T, file string) map[string]bool {
	set := map[string]bool{}
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return set
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		set[sc.Text()] = true
	}
	return set
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
