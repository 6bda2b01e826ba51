package pages

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"
)

// TestFileTimes reads file times by a walk along the key, by look-ups, and by a walk cut
// short whose remaining paths are looked up: each way must find exactly the stored times
// of the paths asked, and leave out those the cache does not know.
func TestFileTimes(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "files.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE files(path TEXT PRIMARY KEY, mtime INTEGER NOT NULL) WITHOUT ROWID`); err != nil {
		t.Fatal(err)
	}
	stored := map[string]int64{}
	for i := range 40 {
		for _, dir := range []string{"concepts", "memories/mail", "projects"} {
			p := fmt.Sprintf("%s/n%02d.md", dir, i)
			stored[p] = int64(1000*i + len(dir))
			if _, err := db.Exec(`INSERT INTO files VALUES (?, ?)`, p, stored[p]); err != nil {
				t.Fatal(err)
			}
		}
	}
	defer func(from, per int) { walkFrom, walkPerPath = from, per }(walkFrom, walkPerPath)
	walkFrom, walkPerPath = 4, 2
	for _, c := range []struct {
		name  string
		paths []string
	}{
		{"few, looked up", []string{"projects/n01.md", "concepts/n07.md", "projects/zz.md"}},
		{"dense, one walk", []string{"projects/n01.md", "projects/n02.md", "projects/n03.md", "projects/n04.md",
			"projects/n04.md", "projects/n05.md", "projects/gone.md"}},
		// From concepts to projects the walk passes 40 records of mail: cut short at 2 rows a
		// path, the paths after it are looked up.
		{"sparse, cut short", []string{"concepts/n00.md", "concepts/n01.md", "concepts/absent.md", "projects/n10.md",
			"projects/n39.md", "projects/zz.md"}},
		{"none", nil},
	} {
		got, err := fileTimes(ctx, db, c.paths)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{}
		for _, p := range c.paths {
			if m, ok := stored[p]; ok {
				want[p] = m
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", c.name, diff)
		}
	}
}
