package memory

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// saveRules saves n rules of importance 1 to 5 in turn, person-stated, with bodies of
// bodyWords words, and returns them in the brief's order.
func saveRules(t *testing.T, s *Store, n, bodyWords int) []string {
	t.Helper()
	for i := range n {
		body := strings.TrimSpace(strings.Repeat(fmt.Sprintf("keep%02d ", i), bodyWords))
		req := RememberRequest{Type: ruleTypes[i%2], Title: fmt.Sprintf("Rule %02d", i), Body: body, Importance: i%5 + 1, Reviewed: true}
		if _, err := s.Remember(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	l, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	ms := slices.Clone(l.All)
	slices.SortFunc(ms, byStanding)
	refs := make([]string, len(ms))
	for i, m := range ms {
		refs[i] = m.Ref
	}
	return refs
}

var refInLine = regexp.MustCompile(`^- .*\((concepts/memory/[^)]+)\)$`)

// pasteRecall runs a printed bf recall command line as bf-memory would read it, following
// next_offset to the last page, and returns the refs listed.
func pasteRecall(t *testing.T, s *Store, command string) []string {
	t.Helper()
	args, ok := strings.CutPrefix(command, "bf recall ")
	if !ok {
		t.Fatalf("not a bf recall command: %q", command)
	}
	var req RecallRequest
	var types string
	fs := flag.NewFlagSet("recall", flag.ContinueOnError)
	fs.StringVar(&types, "type", "", "")
	fs.StringVar(&req.Order, "order", "", "")
	fs.IntVar(&req.Offset, "offset", 0, "")
	fs.IntVar(&req.Limit, "limit", DefaultLimit, "")
	fs.BoolVar(&req.NoTouch, "no-touch", false, "")
	fs.StringVar(&req.Scope, "scope", "", "")
	if err := fs.Parse(strings.Fields(args)); err != nil || fs.NArg() > 0 {
		t.Fatalf("%q: %v %v", command, err, fs.Args())
	}
	req.Types = ParseTypes(types)
	var refs []string
	for {
		r, err := s.Recall(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range r.Items {
			refs = append(refs, it.Ref)
		}
		if r.NextOffset == nil {
			return refs
		}
		req.Offset = int(*r.NextOffset)
	}
}

// Every rule the brief does not show is counted, those beyond twenty and those cut for
// size apart, and the command it prints lists exactly those, in the brief's order.
func TestBriefCountsEveryRule(t *testing.T) {
	for _, c := range []struct {
		rules, bodyWords, bytes int
		shown                   int
		line                    string
		cut                     []Cut
	}{
		{rules: 25, bodyWords: 1, bytes: 1200, shown: 18,
			line: "+7 more rules not shown (5 beyond the first twenty, 2 cut for size): bf recall --type policy,constraint --order importance --offset 18 --limit 50 --no-touch --scope global",
			cut:  []Cut{{Section: "recent", Items: 10}, {Section: "rules", Items: 2}}},
		{rules: 67, bodyWords: 6, bytes: DefaultBriefBytes, shown: 20,
			line: "+47 more rules not shown (47 beyond the first twenty): bf recall --type policy,constraint --order importance --offset 20 --limit 50 --no-touch --scope global"},
		{rules: 67, bodyWords: 40, bytes: 5000, shown: 16,
			line: "+51 more rules not shown (47 beyond the first twenty, 4 cut for size): bf recall --type policy,constraint --order importance --offset 16 --limit 50 --no-touch --scope global (50 a page: pass its next_offset as --offset for the next)",
			cut:  []Cut{{Section: "recent", Items: 10}, {Section: "rules", Items: 4}}},
		{rules: 12, bodyWords: 1, bytes: DefaultBriefBytes, shown: 12},
	} {
		t.Run(fmt.Sprintf("%d rules of %d words in %d bytes", c.rules, c.bodyWords, c.bytes), func(t *testing.T) {
			s := newStore(t)
			rules := saveRules(t, s, c.rules, c.bodyWords)
			b, err := s.Brief(context.Background(), BriefRequest{Bytes: c.bytes})
			if err != nil {
				t.Fatal(err)
			}
			var shown []string
			var rest []string
			for _, ln := range strings.Split(b.Brief, "\n") {
				if m := refInLine.FindStringSubmatch(ln); m != nil && strings.Contains(ln, ": keep") {
					shown = append(shown, m[1])
				}
				if strings.HasPrefix(ln, "+") {
					rest = append(rest, ln)
				}
			}
			if diff := cmp.Diff(rules[:c.shown], shown); diff != "" {
				t.Errorf("rules shown (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(c.cut, b.Cut); diff != "" {
				t.Errorf("cut (-want +got):\n%s", diff)
			}
			if c.line == "" {
				if len(rest) > 0 {
					t.Errorf("all rules shown, yet the brief counts some: %q", rest)
				}
				return
			}
			if diff := cmp.Diff([]string{c.line}, rest); diff != "" {
				t.Fatalf("the line counting rules not shown (-want +got):\n%s", diff)
			}
			section := BriefSection{Name: "rules", Heading: headings["rules"], Items: c.rules, Shown: c.shown, Beyond: c.rules - maxRules,
				Rest: restCommand(ruleTypes, DefaultScope, c.shown)}
			if diff := cmp.Diff(section, b.Sections[0]); diff != "" {
				t.Errorf("rules section (-want +got):\n%s", diff)
			}
			command, _, _ := strings.Cut(strings.SplitN(c.line, ": ", 2)[1], " (50 a page")
			if diff := cmp.Diff(rules[c.shown:], pasteRecall(t, s, command)); diff != "" {
				t.Errorf("the printed command lists (-want +got):\n%s", diff)
			}
		})
	}
}

// Rules stay most important first, pinned or not. A pinned rule beyond twenty is in the
// brief all the same, under Pinned, and the line counting the rules not in the section
// says so; its command lists every one of them.
func TestBriefPinnedRuleBeyondTwenty(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	saveRules(t, s, 25, 1)
	if _, err := s.Remember(ctx, RememberRequest{Type: "constraint", Title: "Budget is fixed", Body: "No new spend.", Importance: 1, Pin: true, Reviewed: true}); err != nil {
		t.Fatal(err)
	}
	b, err := s.Brief(ctx, BriefRequest{Bytes: DefaultBriefBytes})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Pinned\n- Budget is fixed: No new spend. (concepts/memory/budget-is-fixed.md)\n",
		"- Rule 21: keep21 (concepts/memory/rule-21.md)\n+6 more rules not shown (6 beyond the first twenty, 1 of them pinned and under Pinned): bf recall --type policy,constraint --order importance --offset 20 --limit 50 --no-touch --scope global\n",
	} {
		if !strings.Contains(b.Brief, want) {
			t.Errorf("brief:\n%s\nwant:\n%s", b.Brief, want)
		}
	}
	want := []string{"concepts/memory/budget-is-fixed.md", "concepts/memory/rule-00.md", "concepts/memory/rule-05.md",
		"concepts/memory/rule-10.md", "concepts/memory/rule-15.md", "concepts/memory/rule-20.md"}
	rest := b.Sections[1].Rest
	if diff := cmp.Diff(want, pasteRecall(t, s, rest)); diff != "" {
		t.Errorf("%s lists (-want +got):\n%s", rest, diff)
	}
}

// Rules cut whole for size have no line of their own: the cut line counts those beyond
// twenty too, and the reply's section still names the command that lists them all.
func TestBriefRulesCutWhole(t *testing.T) {
	s := newStore(t)
	rules := saveRules(t, s, 25, 1)
	b, err := s.Brief(context.Background(), BriefRequest{Bytes: 300})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Brief of brain test, scope global\n\nCut for size: Recent activity (10), Rules (always apply) (20, and 5 beyond the first twenty). See the rest: bf brief --scope global --bytes 1847\n"
	if diff := cmp.Diff(want, b.Brief); diff != "" {
		t.Errorf("brief (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rules, pasteRecall(t, s, b.Sections[0].Rest)); diff != "" {
		t.Errorf("%s lists (-want +got):\n%s", b.Sections[0].Rest, diff)
	}
}
