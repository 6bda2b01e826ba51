package fuse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/brainfix"
	"github.com/bfgo/bf/libbf/fold"
	"github.com/bfgo/bf/libbf/reply"
	"github.com/bfgo/bf/libbf/schema"
	"github.com/bfgo/bf/libbf/search"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{`"ledger cutover"`, classPhrase},
		{`what is the "ledger"?`, classPhrase},
		{"latest ledger decision", classRecent},
		{"ledger changes this week", classRecent},
		{"ledger 2026-09", classRecent},
		{"invoices 7d", classRecent},
		{"Dana Whitfield", className},
		{"repo:github.com/acme/billing", className},
		{"how do we roll back the ledger", classSentence},
		{"ledger rollback?", classSentence},
		{"customers moved per cohort during the rehearsal", classSentence},
		{"ledger cutover", classKeywords},
		{"Ledger", classKeywords},
		{"ledger 2026", classKeywords},
	} {
		q, err := fold.Parse(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := Classify(tc.query, q); got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.query, got, tc.want)
		}
	}
}

func TestFuseRanks(t *testing.T) {
	lists := []ranking{
		{Graph, []scored{{3, 0.5}}},
		{Lexical, []scored{{1, 9}, {2, 8}}},
		{Dense, []scored{{2, 0.9}, {3, 0.8}}},
	}
	refs := map[int64]string{1: "a", 2: "b", 3: "c"}
	got := fuseRanks(lists, Weights{Lexical: 1, Dense: 1, Graph: 0.5}, refs)
	var order []string
	for _, f := range got {
		order = append(order, f.ref)
	}
	// b: 1/62 + 1/61; a: 1/61; c: 1/62 + its graph evidence 0.5/61 bounded to one step
	// of its dense rank, 1/62 - 1/63: it orders c among near-equals, never past a.
	if diff := cmp.Diff([]string{"b", "a", "c"}, order); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	a, b := 1.0/62, 1.0/61
	if want := a + b; got[0].score != want {
		t.Errorf("score of b = %v, want %v", got[0].score, want)
	}
	step := 1.0/62 - 1.0/63
	if want := 1.0/62 + step; got[2].score != want {
		t.Errorf("score of c = %v, want %v", got[2].score, want)
	}
	want := []reply.Contribution{
		{Name: Dense, Rank: 2, Score: 0.8, Weight: 1, Contribution: reply.Round6(1.0 / 62)},
		{Name: Graph, Rank: 1, Score: 0.5, Weight: 0.5, Contribution: reply.Round6(step)},
	}
	if diff := cmp.Diff(want, got[2].contributors); diff != "" {
		t.Errorf("contributors of c (-want +got):\n%s", diff)
	}
	// An item nothing matched gains its evidence in full; a matched item whose evidence
	// alone would place it higher than its match ranks where the evidence puts it, the
	// two secondary contributions scaled alike.
	deep := make([]scored, 100)
	for i := range deep {
		deep[i] = scored{int64(10 + i), 1}
	}
	deep[99].id = 2
	got = fuseRanks([]ranking{{Lexical, deep}, {Graph, []scored{{1, 1}, {2, 1}}}, {Recency, []scored{{2, 1}}}},
		Weights{Lexical: 1, Graph: 0.8, Recency: 0.8}, refs)
	byRef := map[string]*fused{}
	for _, f := range got {
		byRef[f.ref] = f
	}
	if want := 0.8 / 61; byRef["a"].score != want {
		t.Errorf("score of a (graph only) = %v, want %v", byRef["a"].score, want)
	}
	evidence := 0.8/62 + 0.8/61
	if want := evidence; math.Abs(byRef["b"].score-want) > 1e-15 {
		t.Errorf("score of b (lexical 100, graph 2, recency 1) = %v, want %v", byRef["b"].score, want)
	}
	wantB := []reply.Contribution{
		{Name: Lexical, Rank: 100, Score: 1, Weight: 1, Contribution: reply.Round6(1.0 / 160)},
		{Name: Graph, Rank: 2, Score: 1, Weight: 0.8, Contribution: reply.Round6(0.8 / 62 * (evidence - 1.0/160) / evidence)},
		{Name: Recency, Rank: 1, Score: 1, Weight: 0.8, Contribution: reply.Round6(0.8 / 61 * (evidence - 1.0/160) / evidence)},
	}
	if diff := cmp.Diff(wantB, byRef["b"].contributors); diff != "" {
		t.Errorf("contributors of b (-want +got):\n%s", diff)
	}
	// A strategy of weight 0 adds nothing; equal scores order by ref.
	got = fuseRanks([]ranking{{Lexical, []scored{{2, 1}}}, {Recency, []scored{{1, 1}}}}, Weights{Lexical: 1, Recency: 1}, refs)
	if got[0].ref != "a" || got[1].ref != "b" {
		t.Errorf("ties: got %s, %s", got[0].ref, got[1].ref)
	}
	if got := fuseRanks([]ranking{{Dense, []scored{{1, 1}}}}, Weights{Lexical: 1}, refs); len(got) != 0 {
		t.Errorf("weight 0: got %d items", len(got))
	}
}

func TestRecency(t *testing.T) {
	at := time.Date(2026, 10, 20, 0, 0, 0, 0, time.UTC)
	hits := []search.Hit{
		{ID: 1, Ref: "old", Time: "2026-10-06T00:00:00.000000Z"},
		{ID: 2, Ref: "none"},
		{ID: 3, Ref: "now", Time: "2026-10-20T00:00:00.000000Z"},
		{ID: 4, Ref: "future", Time: "2026-12-01T00:00:00.000000Z"},
	}
	want := []scored{{4, 1}, {3, 1}, {1, 0.5}}
	if diff := cmp.Diff(want, recency(hits, at), cmp.AllowUnexported(scored{})); diff != "" {
		t.Errorf("recency (-want +got):\n%s", diff)
	}
}

func TestExclusions(t *testing.T) {
	b := newBrain(t, fixture)
	for _, tc := range []struct {
		name string
		req  Request
		want []string
	}{
		// The superseded plan gives its rank to the end of its chain; the deprecated
		// archive and the unreviewed agent note stay out; cutover comes through the
		// ledger note's link.
		{"default", Request{Search: search.Request{Query: "ledger"}},
			[]string{"projects/third-plan.md", "projects/ledger.md", "concepts/cutover.md"}},
		{"archived", Request{Search: search.Request{Query: "ledger"}, Archived: true},
			[]string{"projects/third-plan.md", "projects/ledger.md", "projects/archive.md", "concepts/cutover.md"}},
		// Lowering the trust floor returns the agent's note, never the private note its
		// unconfirmed link points at.
		{"unreviewed", Request{Search: search.Request{Query: "ledger"}, Trust: trustUnreviewed},
			[]string{"projects/third-plan.md", "projects/ledger.md", "projects/agent-draft.md", "concepts/cutover.md"}},
		// The graph never leaves the scope.
		{"scope", Request{Search: search.Request{Query: "ledger", Scope: "projects"}},
			[]string{"projects/third-plan.md", "projects/ledger.md"}},
		{"all", Request{Search: search.Request{Query: "rollout plan"}, All: true},
			[]string{"projects/old-plan.md", "projects/third-plan.md", "projects/new-plan.md"}},
		{"chain", Request{Search: search.Request{Query: "rollout plan"}},
			[]string{"projects/third-plan.md"}},
		// A private note found by its own words is returned: only reaching it through an
		// agent's edge is refused.
		{"own words", Request{Search: search.Request{Query: "salary"}, Trust: trustUnreviewed},
			[]string{"concepts/private.md"}},
	} {
		out := fusedSearch(t, b, tc.req)
		if diff := cmp.Diff(tc.want, refs(out.Items)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestSuperseded(t *testing.T) {
	b := newBrain(t, fixture)
	out := fusedSearch(t, b, Request{Search: search.Request{Query: "rollout plan"}, All: true})
	got := map[string]string{}
	for _, it := range out.Items {
		got[it.Ref] = it.SupersededBy
	}
	want := map[string]string{"projects/old-plan.md": "projects/third-plan.md", "projects/new-plan.md": "projects/third-plan.md", "projects/third-plan.md": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("superseded_by (-want +got):\n%s", diff)
	}
	out = fusedSearch(t, b, Request{Search: search.Request{Query: "rollout plan"}})
	if diff := cmp.Diff([]string{"projects/old-plan.md", "projects/new-plan.md"}, out.Items[0].Explain.Replaces); diff != "" {
		t.Errorf("replaces (-want +got):\n%s", diff)
	}
	// An agent's unconfirmed supersedes claim replaces nothing.
	out = fusedSearch(t, b, Request{Search: search.Request{Query: "migration"}, Trust: trustUnreviewed})
	if len(out.Items) == 0 || out.Items[0].Ref != "projects/ledger.md" || out.Items[0].SupersededBy != "" {
		t.Errorf("agent supersedes: got %s", jsonOf(t, out.Items))
	}
}

func TestExplanation(t *testing.T) {
	b := newBrain(t, fixture)
	out := fusedSearch(t, b, Request{Search: search.Request{Query: "ledger"}})
	var cut *reply.Item
	for i := range out.Items {
		if out.Items[i].Explain == nil {
			t.Errorf("%s has no explanation", out.Items[i].Ref)
		}
		if out.Items[i].Ref == "concepts/cutover.md" {
			cut = &out.Items[i]
		}
	}
	if cut == nil {
		t.Fatal("cutover not found")
	}
	want := &reply.Explanation{
		Path:  []reply.Step{{From: "projects/ledger.md", Relation: "links", To: "concepts/cutover.md"}},
		Score: reply.Round6(0.3 / 62),
		Strategies: []reply.Contribution{{Name: Graph, Rank: 2, Score: reply.Round6(1.0 / 62), Weight: 0.3,
			Contribution: reply.Round6(0.3 / 62)}},
	}
	if diff := cmp.Diff(want, cut.Explain); diff != "" {
		t.Errorf("explanation (-want +got):\n%s", diff)
	}
	if out.Fused == nil || out.Fused.Class != classKeywords || out.Fused.Unavailable[Dense] != NoProvider {
		t.Errorf("fused = %s", jsonOf(t, out.Fused))
	}
	valid(t, out)

	// Word search with an explanation keeps its order and explains each item.
	plain, err := search.Run(context.Background(), search.Request{Query: "ledger", Brains: []*brain.Brain{b}, Now: now, Location: zone})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Explain(context.Background(), search.Request{Query: "ledger", Brains: []*brain.Brain{b}, Now: now, Location: zone})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(refs(plain.Items), refs(ex.Items)); diff != "" {
		t.Errorf("explained order (-want +got):\n%s", diff)
	}
	for i, it := range ex.Items {
		e := it.Explain
		if e == nil || e.Strategies[0].Rank != i+1 || e.Terms[0] != "ledger" {
			t.Errorf("item %d: %s", i, jsonOf(t, it))
		}
	}
	last := ex.Items[len(ex.Items)-1]
	if last.Ref != "projects/archive.md" || len(last.Explain.Penalties) != 1 {
		t.Errorf("deprecated last: %s", jsonOf(t, last))
	}
	valid(t, ex)
}

func TestTrustInput(t *testing.T) {
	_, err := Run(context.Background(), Request{Search: search.Request{Query: "x"}, Trust: "everyone"})
	var in *search.InputError
	if !errors.As(err, &in) || in.Argument != "trust" {
		t.Fatalf("got %v", err)
	}
}

// valid checks a reply against the published search reply schema.
func valid(t *testing.T, out *search.Reply) {
	t.Helper()
	raw, err := schema.Get(schema.KindSearchReply)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("search-reply.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("search-reply.json")
	if err != nil {
		t.Fatal(err)
	}
	b, err := reply.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("reply does not validate: %v\n%s", err, b)
	}
}

// jsonOf is v as a command prints it.
func jsonOf(t *testing.T, v any) string { return brainfix.JSON(t, v) }

// chainFixture holds a chain through a deprecated note (d ← e ← f), one ending in a
// deprecated note (g ← h), a chain of twelve (m1 ← … ← m12) and a cycle (k ↔ l).
func chainFixture() map[string]string {
	files := map[string]string{"bf.yaml": fixture["bf.yaml"]}
	note := func(path, status, title, supersedes string) {
		fm := "---\ntype: concept\n" + status + "---\n"
		body := "# " + title + "\n"
		if supersedes != "" {
			body += "\n[Replaces](bf://acme/concepts/" + supersedes + "?rel=supersedes)\n"
		}
		files["concepts/"+path] = fm + body
	}
	note("d.md", "", "Egret survey", "")
	note("e.md", "status: deprecated\n", "Egret survey, second count", "d.md")
	note("f.md", "", "Egret survey, third count", "e.md")
	for n := 1; n <= 12; n++ {
		prev := ""
		if n > 1 {
			prev = fmt.Sprintf("m%d.md", n-1)
		}
		note(fmt.Sprintf("m%d.md", n), "", fmt.Sprintf("Heron count %d", n), prev)
	}
	note("g.md", "", "Grebe tally", "")
	note("h.md", "status: deprecated\n", "Grebe tally, closed", "g.md")
	note("k.md", "", "Kestrel ring", "l.md")
	note("l.md", "", "Kestrel ring, other", "k.md")
	return files
}

func TestSupersedeChains(t *testing.T) {
	b := newBrain(t, chainFixture())
	type mark struct {
		By  string
		Cut bool
	}
	for _, tc := range []struct {
		name string
		req  Request
		want map[string]mark
	}{
		// A deprecated middle note passes the chain on.
		{"deprecated middle", Request{Search: search.Request{Query: "egret"}},
			map[string]mark{"concepts/f.md": {}}},
		{"deprecated middle --all", Request{Search: search.Request{Query: "egret"}, All: true},
			map[string]mark{"concepts/d.md": {By: "concepts/f.md"}, "concepts/f.md": {}}},
		{"deprecated middle --archived --all", Request{Search: search.Request{Query: "egret"}, All: true, Archived: true},
			map[string]mark{"concepts/d.md": {By: "concepts/f.md"}, "concepts/e.md": {By: "concepts/f.md"}, "concepts/f.md": {}}},
		// A successor that may not be returned cannot take the place: the superseded note
		// keeps it, marked; with --archived the successor stands for it.
		{"deprecated end", Request{Search: search.Request{Query: "grebe"}},
			map[string]mark{"concepts/g.md": {By: "concepts/h.md"}}},
		{"deprecated end --archived", Request{Search: search.Request{Query: "grebe"}, Archived: true},
			map[string]mark{"concepts/h.md": {}}},
		// The walk follows 8 successors: m1..m3 are cut and keep their places, naming the
		// successor reached; m4 and later reach m12.
		{"long chain", Request{Search: search.Request{Query: "heron", Limit: 20}},
			map[string]mark{
				"concepts/m1.md": {By: "concepts/m9.md", Cut: true}, "concepts/m2.md": {By: "concepts/m10.md", Cut: true},
				"concepts/m3.md": {By: "concepts/m11.md", Cut: true}, "concepts/m12.md": {}}},
		// A cycle: both keep their places, each naming the other, the chain cut.
		{"cycle", Request{Search: search.Request{Query: "kestrel"}},
			map[string]mark{"concepts/k.md": {By: "concepts/l.md", Cut: true}, "concepts/l.md": {By: "concepts/k.md", Cut: true}}},
	} {
		out := fusedSearch(t, b, tc.req)
		valid(t, out)
		got := map[string]mark{}
		for _, it := range out.Items {
			got[it.Ref] = mark{it.SupersededBy, it.SupersededChainCut}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestCheckTrust(t *testing.T) {
	for _, tc := range []struct {
		floor string
		ok    bool
	}{{trustReviewed, true}, {trustUnreviewed, true}, {"", false}, {"Reviewed", false}, {"everyone", false}} {
		err := CheckTrust(tc.floor)
		var in *search.InputError
		if tc.ok != (err == nil) || err != nil && (!errors.As(err, &in) || in.Argument != "trust") {
			t.Errorf("CheckTrust(%q) = %v", tc.floor, err)
		}
	}
	// A request without a floor takes the default.
	if err := check(Request{}); err != nil {
		t.Errorf("Check(no floor) = %v", err)
	}
}
