package fuse

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/bfgo/bf/libbf/provenance"
	"github.com/bfgo/bf/libbf/record"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/search"
)

// modelItem is a note or record of a random brain, as the property test knows it: who
// may be trusted, what it claims and the targets of the edges it states.
type modelItem struct {
	ref     string
	trusted bool
	claims  []string
	targets map[string]string // target → relation ("" links, related-to, supersedes)
}

// trustModel is a random brain's items by ref.
type trustModel map[string]*modelItem

var (
	propWords      = []string{"alder", "birch", "cedar", "dune", "ember", "fjord", "grove", "heath"}
	propIdentities = []string{"topic:acme/i0", "topic:acme/i1", "topic:acme/i2", "person:email/p0@x.test", "person:email/p1@x.test"}
	propMarks      = []string{"", "", "review: unreviewed\n", "review: reviewed\n", "review: Reviewed\n", "review: [reviewed]\n"}
)

const propConfig = `version: 8
name: acme
fields:
  supersedes:
    description: The note this one replaces.
    type: identity
    cardinality: many
    relation: true
  related-to:
    description: An association.
    type: identity
    cardinality: many
    relation: true
`

func pick[T any](rng *rand.Rand, list []T) T { return list[rng.IntN(len(list))] }

func words(rng *rand.Rand, n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = pick(rng, propWords)
	}
	return strings.Join(out, " ")
}

// quoted is a YAML flow list of strings.
func quoted(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = `"` + s + `"`
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// randomBrain writes a brain of random notes and records, some unreviewed or unconfirmed,
// with random links, typed links, claims and supersedes edges, and returns its model.
func randomBrain(t *testing.T, rng *rand.Rand) (map[string]string, trustModel) {
	files := map[string]string{"bf.yaml": propConfig}
	m := trustModel{}
	notes := 3 + rng.IntN(8)
	noteRef := func(i int) string { return fmt.Sprintf("concepts/n%d.md", i) }
	target := func() string {
		switch rng.IntN(3) {
		case 0:
			return pick(rng, propIdentities)
		case 1:
			return "bf://acme/" + noteRef(rng.IntN(notes))
		}
		return "bf://acme/log:r" + fmt.Sprint(rng.IntN(3))
	}
	claims := func() []string {
		var out []string
		for _, id := range propIdentities {
			if rng.IntN(4) == 0 {
				out = append(out, id)
			}
		}
		return out
	}
	for i := range notes {
		it := &modelItem{ref: noteRef(i), claims: claims(), targets: map[string]string{}}
		mark := pick(rng, propMarks)
		it.trusted = mark == "" || mark == "review: reviewed\n"
		var fm, body strings.Builder
		fm.WriteString("---\ntype: concept\n" + mark)
		if len(it.claims) > 0 {
			fm.WriteString("aliases: " + quoted(it.claims) + "\n")
		}
		var related, supersedes []string
		for range rng.IntN(3) {
			tg := target()
			related = append(related, tg)
			it.targets[tg] = "related-to"
		}
		if rng.IntN(4) == 0 {
			tg := target()
			supersedes = append(supersedes, tg)
			it.targets[tg] = "supersedes"
		}
		if len(related)+len(supersedes) > 0 {
			fm.WriteString("fields:\n")
			if len(related) > 0 {
				fm.WriteString("  related-to: " + quoted(related) + "\n")
			}
			if len(supersedes) > 0 {
				fm.WriteString("  supersedes: " + quoted(supersedes) + "\n")
			}
		}
		fm.WriteString("---\n")
		fmt.Fprintf(&body, "# Note %d %s\n\n%s.", i, pick(rng, propWords), words(rng, 2+rng.IntN(5)))
		for range rng.IntN(3) {
			j := rng.IntN(notes)
			fmt.Fprintf(&body, " See [n%d](n%d.md).", j, j)
			it.targets[noteRef(j)] = ""
		}
		files[it.ref] = fm.String() + body.String() + "\n"
		m[it.ref] = it
	}
	ledger := provenance.Ledger{}
	var recs []string
	for i := range rng.IntN(4) {
		id := fmt.Sprintf("r%d", i)
		it := &modelItem{ref: "log:" + id, claims: claims(), targets: map[string]string{}, trusted: rng.IntN(2) == 0}
		r := record.Record{ID: id, Title: "Record " + id + " " + pick(rng, propWords), Text: words(rng, 3+rng.IntN(4)), Aliases: it.claims}
		for range rng.IntN(3) {
			tg := "bf://acme/" + noteRef(rng.IntN(notes))
			r.Links = append(r.Links, tg)
			it.targets[tg] = ""
		}
		if rng.IntN(3) == 0 {
			tg := target()
			r.Fields = map[string]any{"supersedes": []any{tg}}
			it.targets[tg] = "supersedes"
		}
		data, err := r.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if it.trusted {
			ledger.Wrote(record.FileName(id), data)
		}
		files["memories/log/"+record.FileName(id)] = string(data)
		recs = append(recs, string(data))
		m[it.ref] = it
	}
	if len(ledger) > 0 {
		files["memories/log/"+provenance.LedgerName] = string(ledger.Encode())
	}
	_ = recs
	return files, m
}

// names reports whether target names x legally: by its ref or its own address, or by a
// name it claims when it is trusted (an unconfirmed item's claims name nothing).
func (m trustModel) names(target string, x *modelItem) bool {
	if target == x.ref || target == "bf://acme/"+x.ref {
		return true
	}
	return x.trusted && slices.Contains(x.claims, target)
}

// legalStep reports whether a graph step follows an edge a trusted item stated, resolved
// legally, or an identity two trusted items share.
func (m trustModel) legalStep(st reply.Step) bool {
	from, to := m[st.From], m[st.To]
	if from == nil || to == nil || !from.trusted {
		return false
	}
	if st.Relation == "same-identity" {
		if !to.trusted {
			return false
		}
		for _, c := range from.claims {
			if slices.Contains(to.claims, c) {
				return true
			}
		}
		return false
	}
	for tg := range from.targets {
		if m.names(tg, to) {
			return true
		}
	}
	return false
}

// succeeds reports whether s is reached from p through trusted supersedes edges, each
// naming its predecessor legally.
func (m trustModel) succeeds(s, p string) bool {
	seen := map[string]bool{p: true}
	frontier := []string{p}
	for range maxChain + 1 {
		var next []string
		for _, cur := range frontier {
			for _, it := range m {
				if seen[it.ref] || !it.trusted {
					continue
				}
				for tg, rel := range it.targets {
					if rel == "supersedes" && m.names(tg, m[cur]) {
						if it.ref == s {
							return true
						}
						seen[it.ref] = true
						next = append(next, it.ref)
						break
					}
				}
			}
		}
		frontier = next
	}
	return false
}

// No fused result, at either floor, is an unconfirmed item below the floor, an item
// reached only through an edge an unconfirmed item states or a name it claims, or a
// successor through such a supersedes edge. (An edge a trusted item states may reach an
// unconfirmed item under the lowered floor: a person stated it.) bf ask retrieves through the same fused search
// at the default floor.
func TestTrustBoundaryProperty(t *testing.T) {
	brains := 40
	if testing.Short() {
		brains = 10
	}
	checked := map[string]int{}
	for seed := range brains {
		rng := rand.New(rand.NewPCG(uint64(seed), 34))
		files, m := randomBrain(t, rng)
		b := newBrain(t, files)
		for range 4 {
			q := pick(rng, propWords)
			if rng.IntN(2) == 0 {
				q += " " + pick(rng, propWords)
			}
			for _, floor := range []string{trustReviewed, trustUnreviewed} {
				res := fusedSearch(t, b, Request{Search: search.Request{Query: q, Limit: 50}, Trust: floor})
				for _, it := range res.Items {
					x := m[it.Ref]
					where := fmt.Sprintf("brain %d, %q at %s: %s", seed, q, floor, it.Ref)
					if x == nil {
						t.Fatalf("%s: not an item of the brain", where)
					}
					if !x.trusted && floor == trustReviewed {
						t.Errorf("%s is unconfirmed, below the floor\n%v", where, files[it.Ref])
					}
					ex := it.Explain
					graphOnly := ex != nil && len(ex.Strategies) > 0 && !slices.ContainsFunc(ex.Strategies, func(c reply.Contribution) bool { return c.Name != Graph })
					if graphOnly {
						checked["graph"]++
						if len(ex.Path) != 1 || !m.legalStep(ex.Path[0]) {
							t.Errorf("%s was reached through %+v, no confirmed edge", where, ex.Path)
						}
					}
					for _, p := range ex.Replaces {
						checked["replaces"]++
						if !x.trusted || !m.succeeds(it.Ref, p) {
							t.Errorf("%s replaces %s through no confirmed supersedes chain", where, p)
						}
					}
				}
			}
		}
	}
	// The property is only as strong as what it met.
	if checked["graph"] < 20 || checked["replaces"] < 3 {
		t.Errorf("the random brains exercised too little: %v", checked)
	}
}
