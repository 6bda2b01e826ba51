package cache

import (
	"database/sql"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The documentation of the cache's tables (Tables, vectorTables) names every table its DDL
// creates and every column of each, in order: a column added, renamed or dropped in one place
// only fails here.
func TestTablesDocumentTheDDL(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  []table
		ddl  []string
	}{
		{"generation", tables, ddl},
		{"vector store", vectorTables, vectorsDDL},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, err := sql.Open("sqlite", "file:doc?mode=memory")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			db.SetMaxOpenConns(1)
			created := regexp.MustCompile(`^CREATE (?:VIRTUAL )?TABLE (\w+)`)
			want := map[string][]string{}
			for _, s := range c.ddl {
				if _, err := db.Exec(s); err != nil {
					t.Fatal(err)
				}
				m := created.FindStringSubmatch(s)
				if m == nil {
					t.Fatalf("not a CREATE TABLE statement: %.60s", s)
				}
				want[m[1]] = columnsOf(t, db, m[1])
			}
			got := map[string][]string{}
			for _, tab := range c.doc {
				if tab.Doc == "" {
					t.Errorf("table %s has no documentation", tab.Name)
				}
				var cols []string
				for _, col := range tab.Columns {
					if col.Doc == "" {
						t.Errorf("column %s.%s has no documentation", tab.Name, col.Name)
					}
					cols = append(cols, col.Name)
				}
				got[tab.Name] = cols
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("documented tables and columns differ from the DDL (-ddl +documented):\n%s", diff)
			}
		})
	}
}

func columnsOf(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}
