package e2e

// Tests of the example sensors in examples/sensors: each program runs against a tree built
// here, and every record it prints must pass bf's own record rules.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/record"
)

// sensorScript returns the path of an example sensor as TestMain built it, skipping the
// test when a program the sensor drives is missing (the Git one runs git).
func sensorScript(t *testing.T, name string, needs ...string) string {
	t.Helper()
	for _, prog := range needs {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s is not on PATH; the example sensor %s needs it to run", prog, name)
		}
	}
	return filepath.Join(binDir, name)
}

type sensorRun struct {
	stdout, stderr []byte
	code           int
}

// runSensor runs a script the way bf does: argv without a shell, from dir, stdin closed.
func runSensor(t *testing.T, dir string, env []string, script string, args ...string) sensorRun {
	t.Helper()
	cmd := exec.Command(script, args...)
	cmd.Dir = dir
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	run := sensorRun{stdout: out.Bytes(), stderr: errb.Bytes()}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("running %s: %v", filepath.Base(script), err)
		}
		run.code = exit.ExitCode()
	}
	return run
}

// parseRecords reads a sensor's stdout as bf does: one JSON array whose every element is
// parsed and validated as a record file would be. Records come back keyed by id.
func parseRecords(t *testing.T, run sensorRun) (map[string]record.Record, []string) {
	t.Helper()
	if run.code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", run.code, run.stderr)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(run.stdout, &raw); err != nil {
		t.Fatalf("stdout is not one JSON array: %v\n%s", err, run.stdout)
	}
	byID := map[string]record.Record{}
	var ids []string
	for i, r := range raw {
		rec, err := record.Parse(r)
		if err != nil {
			t.Fatalf("record %d is invalid: %v\n%s", i, err, r)
		}
		if err := rec.Validate(); err != nil {
			t.Fatalf("record %d fails validation: %v", i, err)
		}
		if _, dup := byID[rec.ID]; dup {
			t.Fatalf("duplicate id %q", rec.ID)
		}
		byID[rec.ID] = rec
		ids = append(ids, rec.ID)
	}
	return byID, ids
}

func wantFailure(t *testing.T, run sensorRun, code int) {
	t.Helper()
	if run.code != code {
		t.Fatalf("exit code %d, want %d; stderr:\n%s", run.code, code, run.stderr)
	}
	if len(run.stdout) != 0 {
		t.Fatalf("a failed run printed on stdout:\n%s", run.stdout)
	}
	if len(bytes.TrimSpace(run.stderr)) == 0 {
		t.Fatal("a failed run said nothing on stderr")
	}
}

// gitEnv isolates git from the machine's configuration: a private HOME, no system file.
func gitEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "TZ=UTC")
}

type commitSpec struct {
	message                   string
	file                      string
	author, committer         string // "Name <email>"
	authorDate, committerDate string
}

// commit writes file, commits it with fixed people and dates, and returns the full SHA.
func commit(t *testing.T, repo string, env []string, c commitSpec) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, c.file), []byte(c.message+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	person := func(s string) (string, string) {
		name, email, _ := strings.Cut(s, " <")
		return name, strings.TrimSuffix(email, ">")
	}
	an, ae := person(c.author)
	cn, ce := person(c.committer)
	env = append(slices.Clone(env),
		"GIT_AUTHOR_NAME="+an, "GIT_AUTHOR_EMAIL="+ae, "GIT_AUTHOR_DATE="+c.authorDate,
		"GIT_COMMITTER_NAME="+cn, "GIT_COMMITTER_EMAIL="+ce, "GIT_COMMITTER_DATE="+c.committerDate,
	)
	gitRun(t, repo, env, "add", "--", c.file)
	gitRun(t, repo, env, "commit", "-q", "--no-verify", "-m", c.message)
	return strings.TrimSpace(gitRun(t, repo, env, "rev-parse", "HEAD"))
}

func gitRun(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestSensorGitHistory(t *testing.T) {
	script := sensorScript(t, "git-history", "git")
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	code := filepath.Join(tmp, "code")
	brain := filepath.Join(code, "brain")
	widget := filepath.Join(code, "widget")
	notes := filepath.Join(code, "notes")
	for _, d := range []string{home, brain, widget, notes} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := gitEnv(home)

	gitRun(t, widget, env, "-c", "init.defaultBranch=main", "init", "-q")
	gitRun(t, widget, env, "remote", "add", "origin", "https://github.com/acme/widget.git")
	ana, bob, carol := "Ana Lima <Ana.Lima@Example.test>", "Bob <bob@example.test>", "Carol <carol@example.test>"
	before := commit(t, widget, env, commitSpec{
		message: "Sketch the widget", file: "sketch.txt", author: ana, committer: ana,
		authorDate: "2026-03-01T09:00:00Z", committerDate: "2026-03-01T09:00:00Z",
	})
	atStart := commit(t, widget, env, commitSpec{
		message: "Add widget core\n\nThe core computes totals.", file: "core.go", author: ana, committer: ana,
		authorDate: "2026-03-02T00:00:00Z", committerDate: "2026-03-02T00:00:00Z",
	})
	// Written before the window but committed inside it (a rebase, an applied patch): the
	// committer time decides, and the author time is kept as an attribute.
	rebased := commit(t, widget, env, commitSpec{
		message: "Fix rounding", file: "round.go", author: bob, committer: carol,
		authorDate: "2026-02-20T08:00:00Z", committerDate: "2026-03-02T12:00:00+02:00",
	})
	// Written inside the window but committed after it: not this window's commit.
	late := commit(t, widget, env, commitSpec{
		message: "Polish docs", file: "docs.md", author: bob, committer: bob,
		authorDate: "2026-03-02T05:00:00Z", committerDate: "2026-03-05T10:00:00Z",
	})
	atEnd := commit(t, widget, env, commitSpec{
		message: "Release 1.0", file: "VERSION", author: ana, committer: ana,
		authorDate: "2026-03-03T00:00:00Z", committerDate: "2026-03-03T00:00:00Z",
	})

	gitRun(t, notes, env, "-c", "init.defaultBranch=main", "init", "-q")
	journal := commit(t, notes, env, commitSpec{
		message: "Write the journal", file: "journal.md", author: carol, committer: carol,
		authorDate: "2026-03-02T18:30:00Z", committerDate: "2026-03-02T18:30:00Z",
	})

	const start, end = "2026-03-02T00:00:00.000000Z", "2026-03-03T00:00:00.000000Z"

	t.Run("one repository", func(t *testing.T) {
		// The brain's command passes paths relative to the brain root, its working folder.
		byID, ids := parseRecords(t, runSensor(t, brain, env, script, start, end, "../widget"))
		want := []string{"github.com/acme/widget@" + atStart, "github.com/acme/widget@" + rebased}
		if !slices.Equal(ids, want) {
			t.Fatalf("ids = %q, want %q (excluded: before %s, late %s, at end %s)", ids, want, before, late, atEnd)
		}

		core := byID[want[0]]
		if core.Title != "Add widget core" {
			t.Errorf("title = %q", core.Title)
		}
		if core.Time != "2026-03-02T00:00:00.000000Z" {
			t.Errorf("time = %q", core.Time)
		}
		if core.URL != "https://github.com/acme/widget/commit/"+atStart {
			t.Errorf("url = %q", core.URL)
		}
		if want := []string{"person:email/ana.lima@example.test", "repo:github.com/acme/widget"}; !slices.Equal(core.Links, want) {
			t.Errorf("links = %q, want %q", core.Links, want)
		}
		if want := "Add widget core\n\nThe core computes totals.\n\nFiles changed (1):\nA core.go"; core.Text != want {
			t.Errorf("text = %q, want %q", core.Text, want)
		}
		wantAttrs := map[string]string{
			"repo": "github.com/acme/widget", "sha": atStart, "author": "Ana Lima",
			"authored": "2026-03-02T00:00:00Z", "files": "1",
		}
		checkAttributes(t, core, wantAttrs)

		fix := byID[want[1]]
		if fix.Title != "Fix rounding" || fix.Time != "2026-03-02T10:00:00.000000Z" {
			t.Errorf("title, time = %q, %q", fix.Title, fix.Time)
		}
		if want := []string{"person:email/bob@example.test", "person:email/carol@example.test", "repo:github.com/acme/widget"}; !slices.Equal(fix.Links, want) {
			t.Errorf("links = %q, want %q", fix.Links, want)
		}
		checkAttributes(t, fix, map[string]string{
			"repo": "github.com/acme/widget", "sha": rebased, "author": "Bob", "committer": "Carol",
			"authored": "2026-02-20T08:00:00Z", "files": "1",
		})
	})

	t.Run("folder of repositories", func(t *testing.T) {
		// brain/.. holds brain (not a repository), notes and widget; notes has no origin,
		// so its ids start with the folder name and its records carry no url.
		byID, ids := parseRecords(t, runSensor(t, brain, env, script, start, end, ".."))
		want := []string{"github.com/acme/widget@" + atStart, "github.com/acme/widget@" + rebased, "notes@" + journal}
		if !slices.Equal(ids, want) {
			t.Fatalf("ids = %q, want %q", ids, want)
		}
		j := byID["notes@"+journal]
		if j.URL != "" || !slices.Equal(j.Links, []string{"person:email/carol@example.test"}) {
			t.Errorf("url, links = %q, %q", j.URL, j.Links)
		}
		checkAttributes(t, j, map[string]string{"repo": "notes", "sha": journal})
	})

	t.Run("skip", func(t *testing.T) {
		_, ids := parseRecords(t, runSensor(t, brain, env, script, start, end, "..", "--skip", "widget"))
		if want := []string{"notes@" + journal}; !slices.Equal(ids, want) {
			t.Fatalf("ids = %q, want %q", ids, want)
		}
		_, ids = parseRecords(t, runSensor(t, brain, env, script, start, end, "..", "--skip", "github.com/acme/widget", "--skip", "../notes"))
		if len(ids) != 0 {
			t.Fatalf("ids = %q, want none", ids)
		}
	})

	t.Run("empty window", func(t *testing.T) {
		run := runSensor(t, brain, env, script, "2026-04-01T00:00:00.000000Z", "2026-04-02T00:00:00.000000Z", "../widget")
		if _, ids := parseRecords(t, run); len(ids) != 0 {
			t.Fatalf("ids = %q, want none", ids)
		}
		if got := strings.TrimSpace(string(run.stdout)); got != "[]" {
			t.Fatalf("stdout = %q, want []", got)
		}
	})

	t.Run("not a repository", func(t *testing.T) {
		plain := filepath.Join(tmp, "plain")
		if err := os.MkdirAll(filepath.Join(plain, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		wantFailure(t, runSensor(t, brain, env, script, start, end, plain), 1)
		wantFailure(t, runSensor(t, brain, env, script, start, end, "../widget", filepath.Join(tmp, "missing")), 1)
	})

	t.Run("usage", func(t *testing.T) {
		wantFailure(t, runSensor(t, brain, env, script, start, end), 2)
		wantFailure(t, runSensor(t, brain, env, script, "2026-03-02T00:00:00", end, "../widget"), 2)
	})
}

// checkAttributes compares the named attributes by their JSON text, since Parse keeps
// numbers as json.Number.
func checkAttributes(t *testing.T, r record.Record, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := r.Attributes[k]
		if !ok {
			t.Errorf("%s: attributes.%s is missing", r.ID, k)
			continue
		}
		var s string
		switch g := got.(type) {
		case string:
			s = g
		case json.Number:
			s = g.String()
		default:
			t.Errorf("%s: attributes.%s has type %T", r.ID, k, got)
			continue
		}
		if s != v {
			t.Errorf("%s: attributes.%s = %q, want %q", r.ID, k, s, v)
		}
	}
}

func TestSensorLocalDocuments(t *testing.T) {
	script := sensorScript(t, "local-documents")
	tmp := t.TempDir()
	brain := filepath.Join(tmp, "brain")
	docs := filepath.Join(tmp, "docs")
	files := map[string]string{
		"guide.md":                 "---\ntitle: ignored here\n---\n\nIntro line.\n\n```\n# not a heading\n```\n\n## Getting started #\n\nRun it.\n",
		"notes.txt":                "\n\n  First line of notes\nsecond line\n",
		"empty.md":                 "",
		"Changes.MARKDOWN":         "No heading, just text.\n",
		"nested/deeper/readme.rst": "=======\nReadme\n=======\n\nBody.\n",
		"nested/plan.org":          "#+TITLE: Quarter plan\n* Goals\n",
		"nested/todo.md":           "# Todo\n",
		// Each of these must be left out.
		".secret.md":        "# hidden file\n",
		".hidden/inside.md": "# in a hidden folder\n",
		"drafts/wip.md":     "# excluded folder\n",
		"scratch.tmp.md":    "# excluded by name\n",
		"nested/old.txt":    "excluded by path\n",
		"latin1.txt":        "caf\xe9\n",
		"blob.md":           "# binary\x00\x01\n",
		"image.png":         "not a document type",
	}
	for rel, content := range files {
		p := filepath.Join(docs, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(brain, 0o755); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("a"), 1<<20+1)
	if err := os.WriteFile(filepath.Join(docs, "big.txt"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(tmp, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "leak.md"), []byte("# outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"link.md": "guide.md", "linked": outside} {
		if err := os.Symlink(target, filepath.Join(docs, link)); err != nil {
			t.Skipf("cannot create symbolic links here: %v", err)
		}
	}
	mtimes := map[string]time.Time{
		"guide.md":                 time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC),
		"notes.txt":                time.Date(2026, 3, 2, 10, 0, 0, 123456000, time.UTC),
		"empty.md":                 time.Date(2026, 3, 3, 0, 0, 0, 0, time.FixedZone("", 2*3600)),
		"Changes.MARKDOWN":         time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC),
		"nested/deeper/readme.rst": time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC),
		"nested/plan.org":          time.Date(2026, 3, 6, 0, 0, 0, 0, time.UTC),
		"nested/todo.md":           time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC),
	}
	for rel, mt := range mtimes {
		if err := os.Chtimes(filepath.Join(docs, filepath.FromSlash(rel)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}

	run := runSensor(t, brain, os.Environ(), script, "team", "../docs",
		"--exclude", "drafts", "--exclude", "*.tmp.md", "--exclude=nested/old.txt")
	byID, ids := parseRecords(t, run)

	type want struct{ title, time string }
	wants := map[string]want{
		"Changes.MARKDOWN":         {"No heading, just text.", "2026-03-04T00:00:00.000000Z"},
		"empty.md":                 {"empty.md", "2026-03-02T22:00:00.000000Z"},
		"guide.md":                 {"Getting started", "2026-03-01T09:30:00.000000Z"},
		"nested/deeper/readme.rst": {"Readme", "2026-03-05T00:00:00.000000Z"},
		"nested/plan.org":          {"Quarter plan", "2026-03-06T00:00:00.000000Z"},
		"nested/todo.md":           {"Todo", "2026-03-07T00:00:00.000000Z"},
		"notes.txt":                {"First line of notes", "2026-03-02T10:00:00.123456Z"},
	}
	var wantIDs []string
	for rel := range wants {
		wantIDs = append(wantIDs, "team:"+rel)
	}
	slices.Sort(wantIDs)
	if !slices.Equal(ids, wantIDs) {
		t.Fatalf("ids = %q, want %q (in this order)", ids, wantIDs)
	}

	// bf runs the script from the brain root, so the absolute path is the physical one.
	realDocs, err := filepath.EvalSymlinks(docs)
	if err != nil {
		t.Fatal(err)
	}
	for rel, w := range wants {
		r := byID["team:"+rel]
		if r.Title != w.title {
			t.Errorf("%s: title = %q, want %q", rel, r.Title, w.title)
		}
		if r.Time != w.time {
			t.Errorf("%s: time = %q, want %q", rel, r.Time, w.time)
		}
		if r.Text != files[rel] {
			t.Errorf("%s: text = %q, want the file's content", rel, r.Text)
		}
		if want := "file://" + filepath.ToSlash(filepath.Join(realDocs, filepath.FromSlash(rel))); r.URL != want {
			t.Errorf("%s: url = %q, want %q", rel, r.URL, want)
		}
		checkAttributes(t, r, map[string]string{"path": rel, "bytes": strconv.Itoa(len(files[rel]))})
		if len(r.Links) != 0 || len(r.Aliases) != 0 || len(r.Attributes) != 2 {
			t.Errorf("%s: unexpected links, aliases or attributes: %q %q %v", rel, r.Links, r.Aliases, r.Attributes)
		}
	}
	for _, reason := range []string{"files over 1 MiB: 1", "binary files: 1", "files not in UTF-8: 1"} {
		if !bytes.Contains(run.stderr, []byte(reason)) {
			t.Errorf("stderr does not report %q:\n%s", reason, run.stderr)
		}
	}

	t.Run("deterministic", func(t *testing.T) {
		again := runSensor(t, brain, os.Environ(), script, "team", "../docs",
			"--exclude", "drafts", "--exclude", "*.tmp.md", "--exclude=nested/old.txt")
		if !bytes.Equal(again.stdout, run.stdout) {
			t.Fatal("a second run printed different output")
		}
	})

	t.Run("missing root", func(t *testing.T) {
		wantFailure(t, runSensor(t, brain, os.Environ(), script, "team", "../nowhere"), 1)
	})

	t.Run("unreadable file", func(t *testing.T) {
		locked := filepath.Join(tmp, "locked")
		if err := os.MkdirAll(locked, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(locked, "secret.md")
		if err := os.WriteFile(p, []byte("# secret\n"), 0o000); err != nil {
			t.Fatal(err)
		}
		if f, err := os.Open(p); err == nil {
			f.Close()
			t.Skip("a file with mode 000 is still readable here (root, or a filesystem that ignores modes)")
		}
		// A snapshot that quietly left the file out would delete its record.
		wantFailure(t, runSensor(t, brain, os.Environ(), script, "team", locked), 1)
	})

	t.Run("usage", func(t *testing.T) {
		wantFailure(t, runSensor(t, brain, os.Environ(), script, "team"), 2)
		wantFailure(t, runSensor(t, brain, os.Environ(), script, "a:b", "../docs"), 2)
	})
}
