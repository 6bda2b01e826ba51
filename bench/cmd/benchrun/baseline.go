package main

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bfgo/bf/bench/gen"
	"github.com/bfgo/bf/libbf/fold"
)

// Baselines do the same lookup the brute-force way. rg lists the files holding the
// query's words (case-insensitive, whole words, no stemming, no ranking); sqlite3 runs
// the FTS5 query bf's ranking starts from on the very cache bf built, ordered by the same
// column weights, joined to refs, ten rows. Neither dedups, folds, excerpts nor encodes a
// reply, so both are floors rather than equals.

var (
	periodScope = regexp.MustCompile(`^\d{4}-\d{2}$`)
	sourceScope = regexp.MustCompile(`^memories/([a-z][a-z0-9-]*)(?:/(\d{4}-\d{2}))?$`)
)

func contentWords(q gen.Query) []string {
	var ws []string
	for _, w := range q.Words {
		if !gen.IsFunctionWord(strings.ToLower(w)) {
			ws = append(ws, strings.ToLower(w))
		}
	}
	return ws
}

// rgArgs returns the arguments of the rg run that stands for query q over brain.
func rgArgs(q gen.Query, brain string) []string {
	args := []string{"--no-messages", "-l"}
	where := brain
	switch q.Kind {
	case "identity":
		switch {
		case strings.HasPrefix(q.Identity, "bf://"+gen.BrainName+"/tags/"):
			label := path.Base(q.Identity)
			args = append(args, "-e", `^tags:.*\b`+regexp.QuoteMeta(label)+`\b`)
		case strings.HasPrefix(q.Identity, "bf://"+gen.BrainName+"/") && strings.HasSuffix(q.Identity, ".md"):
			// Notes link to notes by relative path: look for the file name.
			args = append(args, "-F", "-e", path.Base(q.Identity))
		default:
			args = append(args, "-F", "-e", q.Identity)
		}
	case "prefix":
		args = append(args, "-i", "-e", `\b`+regexp.QuoteMeta(q.Words[0]))
	default:
		args = append(args, "-i", "-w", "-F")
		for _, w := range contentWords(q) {
			args = append(args, "-e", w)
		}
		if m := sourceScope.FindStringSubmatch(q.Scope); m != nil {
			where = filepath.Join(brain, "memories", m[1])
		} else if q.Scope != "" && !periodScope.MatchString(q.Scope) && !strings.Contains(q.Scope, ":") {
			where = filepath.Join(brain, filepath.FromSlash(q.Scope))
		}
	}
	return append(args, where)
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func monthRange(ym string) string {
	t, err := time.Parse("2006-01", ym)
	if err != nil {
		return "1"
	}
	return fmt.Sprintf("i.time >= %s AND i.time < %s", sqlString(t.Format("2006-01-02")),
		sqlString(t.AddDate(0, 1, 0).Format("2006-01-02")))
}

// identityItems selects the items that are, own or link to an identity.
func identityItems(id string) string {
	target := sqlString(id)
	if p, ok := strings.CutPrefix(id, "bf://"+gen.BrainName+"/"); ok && strings.HasSuffix(p, ".md") {
		return fmt.Sprintf("SELECT item FROM names WHERE name = %s UNION SELECT item FROM links WHERE target = %s OR target = %s OR target LIKE %s",
			target, target, sqlString(p), sqlString(p+"#%"))
	}
	return fmt.Sprintf("SELECT item FROM names WHERE name = %s UNION SELECT item FROM links WHERE target = %s", target, target)
}

// identitySQL is bf's rule for an identity-shaped query in one statement: when an item is,
// names or links to the identity (for an address of a note, also its path and links to a
// section of it), the items that are, own or link to it; otherwise the ranked FTS5 query
// of the words bf's tokenizer finds in it, all of them OR-ed. Each branch holds the
// condition among its own terms, where SQLite tests a constant term once before reading
// anything: the branch not taken costs nothing.
func identitySQL(id, ranked string) string {
	v := sqlString(id)
	known := fmt.Sprintf("(SELECT EXISTS (SELECT 1 FROM items WHERE ref = %s) OR EXISTS (SELECT 1 FROM names WHERE name = %s)"+
		" OR EXISTS (SELECT 1 FROM links WHERE target = %s)", v, v, v)
	if p, ok := strings.CutPrefix(id, "bf://"+gen.BrainName+"/"); ok && strings.HasSuffix(p, ".md") {
		known += fmt.Sprintf(" OR EXISTS (SELECT 1 FROM items WHERE ref = %s)", sqlString(p))
	}
	if strings.HasPrefix(id, "bf://") && !strings.Contains(id, "#") {
		known += fmt.Sprintf(" OR EXISTS (SELECT 1 FROM links WHERE target > %s AND target < %s)", sqlString(id+"#"), sqlString(id+"$"))
	}
	known += ")"
	words := "SELECT NULL WHERE 0"
	if fq, err := fold.Parse(id); err == nil && len(fq.Terms) > 0 {
		words = strings.TrimSuffix(fmt.Sprintf(ranked, sqlString(fq.Match()), " AND NOT "+known), ";")
	}
	return fmt.Sprintf("SELECT * FROM (SELECT i.ref FROM items i WHERE i.id IN (%s) AND %s ORDER BY i.time DESC LIMIT 10)"+
		" UNION ALL SELECT * FROM (%s);", identityItems(id), known, words)
}

// rankedSQL is the ranked FTS5 query of MATCH %s with the filter %s.
const rankedSQL = "SELECT i.ref FROM search JOIN passages p ON p.id = search.rowid JOIN items i ON i.id = p.item WHERE search MATCH %s%s ORDER BY bm25(search, 10, 1, 0.5, 3) LIMIT 10;"

// sqlFor returns the raw SQL that stands for query q.
func sqlFor(q gen.Query) string {
	const ranked = rankedSQL
	switch q.Kind {
	case "identity":
		if strings.HasPrefix(q.Identity, "bf://"+gen.BrainName+"/tags/") {
			return fmt.Sprintf("SELECT i.ref FROM tags t JOIN items i ON i.id = t.item WHERE t.target = %s ORDER BY i.time DESC LIMIT 10;", sqlString(q.Identity))
		}
		return identitySQL(q.Identity, ranked)
	case "phrase", "common phrase":
		return fmt.Sprintf(ranked, sqlString(`"`+q.Words[0]+`"`), "")
	case "prefix":
		return fmt.Sprintf(ranked, sqlString(`"`+q.Words[0]+`"*`), "")
	}
	var terms []string
	for _, w := range contentWords(q) {
		terms = append(terms, `"`+w+`"`)
	}
	match := sqlString(strings.Join(terms, " OR "))
	filter := ""
	switch s := q.Scope; {
	case s == "":
	case periodScope.MatchString(s):
		filter = " AND " + monthRange(s)
	case sourceScope.MatchString(s):
		m := sourceScope.FindStringSubmatch(s)
		filter = " AND i.source = " + sqlString(m[1])
		if m[2] != "" {
			filter += " AND " + monthRange(m[2])
		}
	case strings.HasPrefix(s, "bf://"+gen.BrainName+"/tags/"):
		filter = " AND i.id IN (SELECT item FROM tags WHERE target = " + sqlString(s) + ")"
	case strings.Contains(s, ":"):
		filter = " AND i.id IN (" + identityItems(s) + ")"
	default:
		filter = " AND i.path LIKE " + sqlString(s+"/%")
	}
	return fmt.Sprintf(ranked, match, filter)
}

// readCase is one bf read measured, with its baselines.
type readCase struct {
	Name string
	Ref  string
	rg   []string // arguments after the brain-relative paths are made absolute
	sql  string
}

func readCases(p *gen.Plan, brain string) []readCase {
	hub := p.Notes[p.Hub].Path
	rec := "tickets:" + gen.TicketKey(0)
	abs := func(rel string) string { return filepath.Join(brain, filepath.FromSlash(rel)) }
	return []readCase{
		{
			Name: "home page", Ref: "",
			rg: []string{"--no-messages", "-c", "-e", "^type: project$", "-e", `^- \[ \]`, abs("projects"), abs("actions")},
			sql: "SELECT ref, title, time, tasks_open FROM items WHERE kind = 'note' AND type = 'project' AND status != 'deprecated' ORDER BY time DESC;" +
				" SELECT ref FROM items WHERE kind = 'note' AND type = 'action' AND status != 'deprecated' ORDER BY path DESC LIMIT 10;",
		},
		{
			Name: "folder page (projects)", Ref: "projects",
			rg: []string{"--no-messages", "-m1", "-e", "^title:", abs("projects")},
			sql: "SELECT ref, title, lead, time, status FROM items WHERE kind = 'note' AND path LIKE 'projects/%' ORDER BY status = 'deprecated', time DESC LIMIT 200;" +
				" SELECT count(*) FROM items WHERE kind = 'note' AND path LIKE 'projects/%';",
		},
		{
			Name: "note with most backlinks", Ref: hub,
			rg: []string{"--no-messages", "-l", "-F", "-e", path.Base(hub), brain},
			sql: fmt.Sprintf("SELECT * FROM items WHERE ref = %s; SELECT i.ref, i.title FROM items i WHERE i.id IN (%s) ORDER BY i.time DESC;",
				sqlString(hub), identityItems("bf://"+gen.BrainName+"/"+hub)),
		},
		{
			Name: "record", Ref: rec,
			rg: []string{"--no-messages", "-l", "-F", "-e", rec, brain},
			sql: fmt.Sprintf("SELECT * FROM items WHERE ref = %s; SELECT i.ref, i.title FROM items i WHERE i.id IN (%s) ORDER BY i.time DESC;",
				sqlString(rec), identityItems(rec)),
		},
	}
}
