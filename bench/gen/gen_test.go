package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
)

var tiny = Config{Notes: 150, Records: 800, Seed: 7}

// digest hashes every file's path, mode and bytes under dir.
func digest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, _ := d.Info()
		data, err := os.ReadFile(p)
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00"))
		h.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func generate(t *testing.T, c Config, workers int) (string, Stats) {
	t.Helper()
	dir := t.TempDir()
	st, err := Generate(dir, NewPlan(c), workers)
	if err != nil {
		t.Fatal(err)
	}
	return dir, st
}

func TestDeterministic(t *testing.T) {
	a, _ := generate(t, tiny, 1)
	b, _ := generate(t, tiny, 4)
	if da, db := digest(t, a), digest(t, b); da != db {
		t.Fatalf("same config, different bytes: %s != %s", da, db)
	}
	other := tiny
	other.Seed++
	c, _ := generate(t, other, 2)
	if digest(t, a) == digest(t, c) {
		t.Fatal("another seed gave the same brain")
	}
}

func TestSizes(t *testing.T) {
	if Sizes["small"].Notes != 1_000 || Sizes["small"].Records != 10_000 ||
		Sizes["large"].Notes != 10_000 || Sizes["large"].Records != 100_000 {
		t.Fatalf("sizes: %+v", Sizes)
	}
	p := NewPlan(Sizes["large"])
	if len(p.Notes) != 10_000 {
		t.Fatalf("large plan has %d notes", len(p.Notes))
	}
	total := 0
	for k, n := range p.PerSrc {
		if n > record.MaxEntriesPerSource || n == 0 {
			t.Errorf("source %s holds %d records", Sources[k], n)
		}
		total += n
	}
	if total != 100_000 {
		t.Errorf("large plan has %d records", total)
	}
	if Sizes["small"].Key() == Sizes["large"].Key() {
		t.Error("sizes share a cache key")
	}
}

var (
	h2       = regexp.MustCompile(`(?m)^## `)
	sectLink = regexp.MustCompile(`\]\([^)\s]+\.md#[a-z0-9-]+\)`)
	taskLine = regexp.MustCompile(`(?m)^- \[[ x]\] `)
	relLink  = regexp.MustCompile(`\?rel=(depends-on|related-to|owner)\)`)
	recLink  = regexp.MustCompile(`\]\((tickets|docs):[^)]+\)`)
	wordRe   = regexp.MustCompile(`[A-Za-z][A-Za-z-]*`)
)

func TestShape(t *testing.T) {
	dir, st := generate(t, tiny, 0)
	p := NewPlan(tiny)

	notes, deprecated, sectionLinks, tasks, relations, recordLinks := 0, 0, 0, 0, 0, 0
	for _, root := range []string{"projects", "concepts", "actions"} {
		filepath.WalkDir(filepath.Join(dir, root), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
				return err
			}
			notes++
			data, _ := os.ReadFile(path)
			s := string(data)
			base := filepath.Base(path)
			if strings.Contains(s, "\nstatus: deprecated\n") {
				deprecated++
			}
			sectionLinks += len(sectLink.FindAllString(s, -1))
			tasks += len(taskLine.FindAllString(s, -1))
			relations += len(relLink.FindAllString(s, -1))
			recordLinks += len(recLink.FindAllString(s, -1))
			if base == "index.md" || base == "log.md" || strings.Contains(path, "/outputs/") {
				return nil
			}
			if !strings.HasPrefix(s, "---\ntype: ") || !strings.Contains(s, "\ntags: [") || !strings.Contains(s, "\nupdated: ") {
				t.Errorf("%s: front matter lacks type, tags or updated", path)
			}
			if n := len(h2.FindAllString(s, -1)); n < 3 || n > 8 {
				t.Errorf("%s: %d sections, want 3 to 8", path, n)
			}
			return nil
		})
	}
	if notes != tiny.Notes || st.Notes != tiny.Notes {
		t.Errorf("notes: %d on disk, %d reported, want %d", notes, st.Notes, tiny.Notes)
	}
	for name, n := range map[string]int{"deprecated notes": deprecated, "section links": sectionLinks, "tasks": tasks,
		"typed relations": relations, "links to records": recordLinks} {
		if n == 0 {
			t.Errorf("no %s", name)
		}
	}

	lo, hi := epochStart, epochStart.AddDate(0, 0, epochDays+1)
	ticketURLs := map[string]bool{}
	urls := map[string]int{}
	records := 0
	for k, src := range Sources {
		entries, err := os.ReadDir(filepath.Join(dir, "memories", src))
		if err != nil {
			t.Fatal(err)
		}
		// The records count as collected: the ledger names each of them with its bytes.
		ledgerData, err := os.ReadFile(filepath.Join(dir, "memories", src, provenance.LedgerName))
		if err != nil {
			t.Fatal(err)
		}
		ledger := provenance.ParseLedger(ledgerData)
		entries = slices.DeleteFunc(entries, func(e os.DirEntry) bool { return e.Name() == provenance.LedgerName })
		if len(entries) != p.PerSrc[k] || st.Records[src] != p.PerSrc[k] || len(ledger) != p.PerSrc[k] {
			t.Errorf("%s: %d files, plan %d, reported %d, in the ledger %d", src, len(entries), p.PerSrc[k], st.Records[src], len(ledger))
		}
		for _, e := range entries {
			records++
			data, _ := os.ReadFile(filepath.Join(dir, "memories", src, e.Name()))
			r, err := record.Parse(data)
			if err != nil {
				t.Fatalf("%s/%s: %v", src, e.Name(), err)
			}
			if !ledger.Confirms(e.Name(), data) {
				t.Errorf("%s/%s is not in the ledger", src, e.Name())
			}
			if record.FileName(r.ID) != e.Name() {
				t.Errorf("%s/%s holds id %q", src, e.Name(), r.ID)
			}
			if canon, _ := r.Canonical(); !bytes.Equal(canon, data) {
				t.Errorf("%s/%s is not canonical", src, e.Name())
			}
			tm, err := time.Parse(time.RFC3339, r.Time)
			if err != nil || tm.Before(lo) || tm.After(hi) {
				t.Errorf("%s/%s: time %q outside the two years", src, e.Name(), r.Time)
			}
			if r.Title == "" || r.Text == "" {
				t.Errorf("%s/%s: no title or text", src, e.Name())
			}
			if src == "tickets" {
				ticketURLs[r.URL] = true
			}
			urls[r.URL]++
		}
	}
	if records != tiny.Records {
		t.Errorf("%d records, want %d", records, tiny.Records)
	}
	shared := 0
	for u, n := range urls {
		if n > 1 && ticketURLs[u] {
			shared++
		}
	}
	if shared == 0 {
		t.Error("no record shares a ticket's URL")
	}

	// bf.yaml declares every source.
	cfg, _ := os.ReadFile(filepath.Join(dir, "bf.yaml"))
	for _, s := range Sources {
		if !strings.Contains(string(cfg), "\n  "+s+":\n") {
			t.Errorf("bf.yaml does not declare %s", s)
		}
	}
}

// TestWords checks the text is made of vocabulary words with a Zipf-like spread: the
// most frequent word is far more frequent than the hundredth.
func TestWords(t *testing.T) {
	p := NewPlan(tiny)
	known := map[string]bool{}
	for _, w := range Vocabulary() {
		for _, part := range strings.Fields(w) {
			known[strings.ToLower(part)] = true
		}
	}
	counts := map[string]int{}
	for i := range 300 {
		_, data, err := p.RecordFile(i)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := record.Parse(data)
		for _, w := range wordRe.FindAllString(r.Text, -1) {
			counts[strings.ToLower(w)]++
		}
	}
	unknown, total := 0, 0
	var freq []int
	for w, n := range counts {
		total += n
		freq = append(freq, n)
		if !known[w] {
			unknown += n
		}
	}
	if float64(unknown) > 0.05*float64(total) {
		t.Errorf("%d of %d words are not vocabulary words", unknown, total)
	}
	slices.Sort(freq)
	slices.Reverse(freq)
	if len(freq) < 200 || freq[0] < 10*freq[99] {
		t.Errorf("not Zipf-like: %d distinct words, top %d, 100th %d", len(freq), freq[0], freq[min(99, len(freq)-1)])
	}
}

func TestQueries(t *testing.T) {
	p := NewPlan(Sizes["small"])
	qs := Queries(p)
	if len(qs) != 64 {
		t.Fatalf("%d queries, want 64", len(qs))
	}
	vocab := Vocabulary()
	inVocab := func(w string) bool {
		return slices.ContainsFunc(vocab, func(v string) bool { return v == w || slices.Contains(strings.Fields(v), w) })
	}
	kinds := map[string]int{}
	for _, q := range qs {
		kinds[q.Kind]++
		switch q.Kind {
		case "identity":
			if q.Identity == "" {
				t.Errorf("identity query %q without identity", q.Text)
			}
		case "prefix":
			if !slices.ContainsFunc(vocab, func(v string) bool { return strings.HasPrefix(v, q.Words[0]) }) {
				t.Errorf("prefix %q matches no vocabulary word", q.Text)
			}
		case "phrase", "common phrase":
			if !slices.Contains(vocab, q.Words[0]) {
				t.Errorf("phrase %q is not a vocabulary phrase", q.Text)
			}
		default:
			found := 0
			for _, w := range q.Words {
				if inVocab(w) {
					found++
				}
			}
			if found == 0 {
				t.Errorf("query %q has no vocabulary word", q.Text)
			}
		}
	}
	for _, k := range []string{"word", "words", "phrase", "prefix", "scoped", "common", "common pair", "common triple", "common phrase",
		"common in a source", "identity"} {
		if kinds[k] == 0 {
			t.Errorf("no %s query", k)
		}
	}
}

func TestRel(t *testing.T) {
	for _, c := range []struct{ from, to, want string }{
		{"projects/a/x.md", "projects/b/y.md", "../b/y.md"},
		{"projects/a/x.md", "projects/a/z.md", "z.md"},
		{"actions/2025-01-01_x/ACTION.md", "concepts/c.md", "../../concepts/c.md"},
		{"concepts/c.md", "concepts/people/d.md", "people/d.md"},
	} {
		if got := rel(c.from, c.to); got != c.want {
			t.Errorf("rel(%s, %s) = %s, want %s", c.from, c.to, got, c.want)
		}
	}
}

// TestFoldersKeepTheSourceLimit: with a million records, each source fills equally full
// folders that leave room for its ledger within a source's limit, named SOURCE, SOURCE-2,
// …, every one declared; with 100,000 records each source keeps one folder.
func TestFoldersKeepTheSourceLimit(t *testing.T) {
	for _, c := range []struct {
		records int
		want    []string
	}{
		{100_000, []string{"tickets", "mail", "chat", "docs"}},
		{1_000_000, []string{"tickets", "tickets-2", "tickets-3", "tickets-4", "mail", "mail-2", "mail-3", "mail-4",
			"chat", "chat-2", "chat-3", "chat-4", "docs", "docs-2"}},
	} {
		p := NewPlan(Config{Notes: 1_000, Records: c.records, Seed: 1})
		held := map[string]int{}
		for i := range p.Config.Records {
			src, j := p.RecordSource(i)
			held[p.Folder(src, j)]++
		}
		var declared []string
		for _, f := range p.Folders() {
			declared = append(declared, f[0])
			if n := held[f[0]]; n == 0 || n+1 > record.MaxEntriesPerSource {
				t.Errorf("%d records: folder %s holds %d records and its ledger", c.records, f[0], n)
			}
		}
		if !slices.Equal(declared, c.want) || len(held) != len(declared) {
			t.Errorf("%d records: folders %q (%d hold records), want %q", c.records, declared, len(held), c.want)
		}
	}
}
