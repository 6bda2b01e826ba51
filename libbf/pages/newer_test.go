package pages

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/bfgo/bf/libbf/cache"
	"github.com/google/go-cmp/cmp"
)

// randomBrains writes two brains, alpha and beta, whose notes and records link to each
// other every way newer evidence counts (paths, addresses, #sections, bare and addressed
// SOURCE:IDs, names held once or twice, links to themselves) at random times.
func randomBrains(t *testing.T, seed uint64) []*testBrain {
	rng := rand.New(rand.NewPCG(seed, 7))
	names := []string{"org:n0", "org:n1", "org:n2", "org:n3", "mail:r1", "projects/p0.md"}
	notes := []string{"projects/p0.md", "projects/p1.md", "projects/p2.md", "projects/sub/p3.md", "projects/p4.md",
		"concepts/c0.md", "concepts/c1.md", "actions/2026-09-20_a/ACTION.md", "actions/2026-09-20_a/outputs/o.md"}
	records := []string{"r0", "r1", "r2", "r#3", "r4", "r5", "r6", "r7"}
	day := func() string { return fmt.Sprintf("2026-%02d-%02d", 9+rng.IntN(2), 1+rng.IntN(28)) }
	instant := func() time.Time {
		return time.Date(2026, 8, 25, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(50*24)) * time.Hour)
	}
	pick := func(n int, from []string) []string {
		var out []string
		for range n {
			out = append(out, from[rng.IntN(len(from))])
		}
		return out
	}
	var brains []*testBrain
	for _, name := range []string{"alpha", "beta"} {
		other := map[string]string{"alpha": "beta", "beta": "alpha"}[name]
		target := func(from string) string {
			n := notes[rng.IntN(len(notes))]
			frag := ""
			if rng.IntN(3) == 0 {
				frag = "#sec"
			}
			switch rng.IntN(9) {
			case 0, 1:
				return relPath(path.Dir(from), n) + frag
			case 2:
				return "bf://" + name + "/" + n + frag
			case 3:
				return "bf://" + other + "/" + n + frag
			case 4:
				return "mail:" + records[rng.IntN(len(records))]
			case 5:
				return "bf://" + other + "/mail:" + strings.ReplaceAll(records[rng.IntN(len(records))], "#", "%23")
			case 6:
				return "bf://" + name + "/mail:" + strings.ReplaceAll(records[rng.IntN(len(records))], "#", "%23")
			default:
				return names[rng.IntN(len(names)-2)]
			}
		}
		files := map[string]string{}
		for i, n := range notes {
			var fm []string
			if strings.HasPrefix(n, "projects/") && rng.IntN(5) > 0 {
				fm = append(fm, "type: project")
			}
			if rng.IntN(4) > 0 {
				fm = append(fm, "updated: "+day())
			}
			if rng.IntN(4) == 0 {
				fm = append(fm, "stale_after: "+instant().Format(time.RFC3339))
			}
			if rng.IntN(3) == 0 {
				fm = append(fm, "aliases: ["+strings.Join(pick(1+rng.IntN(2), names[:4]), ", ")+"]")
			}
			body := fmt.Sprintf("# Note %d\n\nIntro.\n\n## Sec\n\n", i)
			for range rng.IntN(5) {
				body += "See [x](" + target(n) + ").\n"
			}
			files[n] = "---\ntitle: Note " + fmt.Sprint(i) + "\n" + strings.Join(fm, "\n") + "\n---\n" + body
		}
		b := newBrain(t, name, "version: 8\nname: %s\n", files)
		for _, n := range notes {
			b.Touch(n, instant())
		}
		// Some records only one brain holds: a bare SOURCE:ID then names another brain's.
		own := records[:6]
		if name == "beta" {
			own = records[2:]
		}
		for _, id := range own {
			var fields []string
			fields = append(fields, `"title":"R"`)
			if rng.IntN(5) > 0 {
				fields = append(fields, fmt.Sprintf("%q:%q", "time", instant().Format("2006-01-02T15:04:05.000000Z")))
			}
			if rng.IntN(3) == 0 {
				fields = append(fields, fmt.Sprintf(`"attributes":{"updated":%q}`, instant().Format("2006-01-02T15:04:05.000000Z")))
			}
			var links []string
			for range rng.IntN(4) {
				tg := target("memories")
				if rng.IntN(4) == 0 {
					tg = notes[rng.IntN(len(notes))]
				}
				links = append(links, fmt.Sprintf("%q", tg))
			}
			if len(links) > 0 {
				fields = append(fields, `"links":[`+strings.Join(links, ",")+`]`)
			}
			if rng.IntN(4) == 0 {
				fields = append(fields, fmt.Sprintf(`"aliases":[%q]`, names[rng.IntN(4)]))
			}
			b.Record("mail", id, strings.Join(fields, ","))
		}
		brains = append(brains, b)
	}
	return brains
}

// relPath is the relative path from folder dir to p.
func relPath(dir, p string) string {
	up := ""
	for dir != "." && !strings.HasPrefix(p, dir+"/") {
		dir = path.Dir(dir)
		up += "../"
	}
	if dir == "." {
		return up + p
	}
	return up + strings.TrimPrefix(p, dir+"/")
}

// signalsBy reviews every note of brain self of sc one way, by ref.
func signalsBy(t *testing.T, sc *scope, self int, now time.Time, how strategy) map[string]Signals {
	t.Helper()
	ctx := context.Background()
	b := sc.brains[self]
	p := &part{name: b.name, days: b.days, lowJSON: "[]"}
	rows, err := queryOn(ctx, b.q, p, `''`, `i.kind = 'note'`, `i.ref`, -1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := startReview(ctx, sc, self, rows, now, paris)
	if err != nil {
		t.Fatal(err)
	}
	v.only = how
	// Settle in two halves, as home does, so that notes settled by the first are kept.
	if err := v.decide(ctx, rows[:len(rows)/2]); err != nil {
		t.Fatal(err)
	}
	if err := v.settle(ctx, rows); err != nil {
		t.Fatal(err)
	}
	out := map[string]Signals{}
	for _, r := range rows {
		if r.signals != nil {
			out[r.ref] = *r.signals
		}
	}
	return out
}

// Following the notes' links and following the links of the items dated in their windows
// find the same newer evidence, whatever the brains, names and times.
func TestNewerWaysAgree(t *testing.T) {
	nows := []time.Time{utc(9, 1, 0, 0), utc(9, 20, 12, 0), utc(10, 1, 0, 0), utc(10, 14, 8, 30), utc(11, 30, 0, 0)}
	evidence := 0
	for seed := range uint64(8) {
		brains := randomBrains(t, seed)
		var dbs []*sql.DB
		for _, b := range brains {
			c, err := cache.Open(context.Background(), b.Open())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			dbs = append(dbs, c.DB())
		}
		days := func(i int) string {
			d, err := cache.NoteDays(context.Background(), dbs[i], paris)
			if err != nil {
				t.Fatal(err)
			}
			return d
		}
		both := []snapshot{{name: "alpha", q: dbs[0], days: days(0)}, {name: "beta", q: dbs[1], days: days(1)}}
		scopes := []*scope{
			{brains: both},
			{brains: both, missing: true},
			{brains: both[:1], local: true},
			{brains: both[1:], local: true, missing: true},
		}
		for si, sc := range scopes {
			for self := range sc.brains {
				for _, now := range nows {
					links := signalsBy(t, sc, self, now, byLinks)
					times := signalsBy(t, sc, self, now, byTime)
					auto := signalsBy(t, sc, self, now, anyWay)
					for _, s := range links {
						evidence += s.NewLinks
					}
					name := fmt.Sprintf("seed %d scope %d brain %s at %s", seed, si, sc.brains[self].name, now.Format(time.RFC3339))
					if diff := cmp.Diff(links, times); diff != "" {
						t.Errorf("%s: by links (-) and by time (+) differ:\n%s", name, diff)
					}
					if diff := cmp.Diff(links, auto); diff != "" {
						t.Errorf("%s: by links (-) and either way (+) differ:\n%s", name, diff)
					}
				}
			}
		}
	}
	// The brains must hold evidence for the comparison to mean anything.
	if evidence < 100 {
		t.Errorf("only %d newer items in all", evidence)
	}
}
