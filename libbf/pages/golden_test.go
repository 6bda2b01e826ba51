package pages

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/record"
)

var update = flag.Bool("update", false, "rewrite the golden replies in testdata")

// golden compares a reply's printed JSON with testdata/NAME.json.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	checkJSON(t, name, strings.TrimSuffix(string(want), "\n"), got)
}

// goldenName turns a page path into a file name.
func goldenName(path string) string {
	if path == "" {
		return "home"
	}
	r := strings.NewReplacer("/", "_", "..", "-to-")
	return r.Replace(strings.TrimSuffix(path, "/"))
}

// TestPagesOneBrain checks the exact reply of every page of one brain.
func TestPagesOneBrain(t *testing.T) {
	w := workBrain(t)
	m3 := record.FileName("m3")
	tests := []struct{ path, name string }{
		{"", ""},
		{"projects", ""},
		{"projects/", "projects"}, // a trailing slash reads like the folder
		{"projects/web", ""},
		{"concepts", ""},
		{"actions", ""},
		{"tasks", ""},
		{"today", ""},
		{"yesterday", ""},
		{"12h", ""},
		{"7d", ""},
		{"2w", ""},
		{"2026-09-26", ""},
		{"2026-09", ""},
		{"2026-09-26..2026-09-27", ""},
		{"memories", ""},
		{"memories/mail", ""},
		{"memories/mail/today", ""},
		{"memories/mail/undated", ""},
		{"memories/news/2026-09-28", ""},
		{"memories/mail/" + m3, "memories_mail_FILE"},
		{"memories/mail/" + record.FileName("nothing"), "memories_mail_NOFILE"},
		{"tags", ""},
		{"tags/website/", "tags_website"},
		{"tags/nobody", ""},
		{"actions/2026-09-25_launch", ""},
		{"actions/2026-09-25_launch/", "actions_2026-09-25_launch"},
	}
	for _, tt := range tests {
		name := tt.name
		if name == "" {
			name = goldenName(tt.path)
		}
		t.Run(name, func(t *testing.T) {
			golden(t, "work/"+name, readJSON(t, tt.path, 0, w))
		})
	}
}

// TestPagesDaylightSaving places items on the day summer time ends in Paris (25 hours).
func TestPagesDaylightSaving(t *testing.T) {
	d := dstBrain(t)
	for _, path := range []string{"2026-10-25", "2026-10-24..2026-10-25", "2026-10", "memories/log/2026-10-25"} {
		t.Run(goldenName(path), func(t *testing.T) {
			golden(t, "dst/"+goldenName(path), readJSON(t, path, 0, d))
		})
	}
}

// TestPagesSeveralBrains combines two brains on each page, with brain and uri.
func TestPagesSeveralBrains(t *testing.T) {
	w, h := workBrain(t), homeBrain(t)
	for _, path := range []string{"", "projects", "tasks", "tags", "tags/website", "today", "memories", "memories/mail",
		"actions/2026-09-25_launch"} {
		t.Run(goldenName(path), func(t *testing.T) {
			golden(t, "two/"+goldenName(path), readJSON(t, path, 0, w, h))
		})
	}
}
