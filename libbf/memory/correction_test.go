package memory

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	stage2 = "concepts/memory/staging-runs-on-the-stage-2-box.md"
	stage3 = "concepts/memory/staging-moved-to-the-stage-3-box.md"
)

// correctedStore holds "staging runs on the stage-2 box", pinned at importance 5, and its
// correction "staging moved to the stage-3 box".
func correctedStore(t *testing.T) (*Store, *RememberReply) {
	t.Helper()
	s := newStore(t)
	ctx := context.Background()
	if _, err := s.Remember(ctx, RememberRequest{Type: "fact", Title: "Staging runs on the stage-2 box", Body: "stage-2 serves staging.", Importance: 5, Pin: true}); err != nil {
		t.Fatal(err)
	}
	r, err := s.Remember(ctx, RememberRequest{Type: "fact", Title: "Staging moved to the stage-3 box", Body: "stage-3 serves staging since March.", Supersedes: "staging-runs-on-the-stage-2-box"})
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

// A correction takes over the pin and the higher importance, and says so.
func TestCorrectionInherits(t *testing.T) {
	s, r := correctedStore(t)
	want := []string{
		"remembered " + stage3 + " [global/fact] Staging moved to the stage-3 box",
		"  inherits from " + stage2 + ": importance 5 (the higher of its 5 and the default 3; --importance N sets another); the pin",
		"  supersedes " + stage2 + ", kept as history; a save of its title in global now reaches this correction",
		"  unreviewed until a person accepts it (bf review --accept " + stage3 + "); fused search, bf ask and MCP resources leave it out until then",
	}
	if diff := cmp.Diff(want, r.Said); diff != "" {
		t.Errorf("said (-want +got):\n%s", diff)
	}
	l, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if m := l.ByRef[stage3]; m.Importance != 5 || !m.Pinned {
		t.Errorf("correction: importance %d, pinned %v; want 5, pinned", m.Importance, m.Pinned)
	}
	b, err := s.Brief(context.Background(), BriefRequest{Bytes: DefaultBriefBytes})
	if err != nil {
		t.Fatal(err)
	}
	if want := "## Pinned\n- [unreviewed] Staging moved to the stage-3 box: stage-3 serves staging since March. (" + stage3 + ")\n"; !strings.Contains(b.Brief, want) {
		t.Errorf("brief:\n%s\nwant:\n%s", b.Brief, want)
	}

	// Given explicitly, the importance is the one given; the pin is still inherited, and
	// an old memory below the default leaves the default.
	ctx := context.Background()
	if _, err := s.Remember(ctx, RememberRequest{Type: "fact", Title: "Minor note on the wiki", Body: "Wiki.", Importance: 1}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		req        RememberRequest
		importance int
		pinned     bool
	}{
		{RememberRequest{Type: "fact", Title: "Staging moved to the stage-4 box", Body: "stage-4.", Supersedes: stage3, Importance: 2}, 2, true},
		{RememberRequest{Type: "fact", Title: "The wiki moved to the intranet", Body: "Intranet.", Supersedes: "minor-note-on-the-wiki"}, 3, false},
	} {
		r, err := s.Remember(ctx, c.req)
		if err != nil {
			t.Fatal(err)
		}
		if r.Importance != c.importance {
			t.Errorf("%s: importance %d, want %d", c.req.Title, r.Importance, c.importance)
		}
		l, _ := s.Load()
		if l.ByRef[r.Ref].Pinned != c.pinned {
			t.Errorf("%s: pinned %v, want %v", c.req.Title, !c.pinned, c.pinned)
		}
	}
}

// Saving a withdrawn memory's title again reaches its correction: the withdrawn body is
// refused, the correction's body is an unchanged save, another body needs --update and
// then saves over the correction. Nothing ever makes a second current fact.
func TestCorrectionTakesOverIdentity(t *testing.T) {
	title := "Staging runs on the stage-2 box"
	for _, c := range []struct {
		name    string
		req     RememberRequest
		reason  string
		flags   []string
		action  string
		said    string
		message string
	}{
		{name: "the withdrawn fact again", req: RememberRequest{Type: "fact", Title: title, Body: "stage-2 serves staging."},
			reason: "withdrawn", flags: []string{"--supersedes " + stage3},
			message: stage2 + " was withdrawn: " + stage3 + " corrected it and holds its title in global now.\n" +
				"The body you gave is the withdrawn fact; saving it again would make two current answers to one question.\n" +
				"  current: Staging moved to the stage-3 box: stage-3 serves staging since March.\n" +
				"  yours:   Staging runs on the stage-2 box: stage-2 serves staging.\n" +
				"Pick one:\n" +
				"  the correction stands     nothing to save; bf recall finds " + stage3 + "\n" +
				"  the old fact holds again  --supersedes " + stage3 + " (a correction of the correction)"},
		{name: "the withdrawn fact with --update", req: RememberRequest{Type: "fact", Title: "staging  RUNS on the stage-2 box", Body: "stage-2 serves staging.", Update: true},
			reason: "withdrawn", flags: []string{"--supersedes " + stage3}},
		{name: "other words", req: RememberRequest{Type: "fact", Title: title, Body: "stage-3, since March."},
			reason: "changed-body", flags: []string{"--update", "--supersedes " + stage3}},
		{name: "the correction's body", req: RememberRequest{Type: "fact", Title: title, Body: "stage-3 serves staging since March."},
			action: "unchanged", said: "  " + stage2 + "'s title leads to its correction " + stage3 + ": it holds this body already"},
		{name: "other words with --update", req: RememberRequest{Type: "fact", Title: title, Body: "stage-3, since March.", Update: true},
			action: "updated", said: "  " + stage2 + "'s title leads to its correction " + stage3 + ": saved over it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := correctedStore(t)
			before := memoryFiles(t, s)
			r, err := s.Remember(context.Background(), c.req)
			if c.reason != "" {
				ref, ok := IsRefusal(err)
				if !ok {
					t.Fatalf("saved %+v, err %v; want refused as %s", r, err, c.reason)
				}
				if ref.Reason != c.reason || ref.Existing != stage3 || !cmp.Equal(ref.Flags, c.flags) {
					t.Errorf("refused %s of %s with %v; want %s of %s with %v", ref.Reason, ref.Existing, ref.Flags, c.reason, stage3, c.flags)
				}
				if c.message != "" {
					if diff := cmp.Diff(c.message, ref.Message); diff != "" {
						t.Errorf("message (-want +got):\n%s", diff)
					}
				}
			} else if err != nil {
				t.Fatal(err)
			} else if r.Action != c.action || r.Ref != stage3 || !slices.Contains(r.Said, c.said) {
				t.Errorf("saved %s %s, said %q; want %s %s saying %q", r.Action, r.Ref, r.Said, c.action, stage3, c.said)
			}
			if diff := cmp.Diff(before, memoryFiles(t, s)); diff != "" {
				t.Errorf("memory files (-before +after):\n%s", diff)
			}
			rec, err := s.Recall(context.Background(), RecallRequest{Limit: maxLimit, NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(rec.Items) != 1 || rec.Items[0].Ref != stage3 {
				t.Errorf("recall lists %d memories, first %+v; want the correction alone", len(rec.Items), rec.Items)
			}
		})
	}
}

// A correction in a scope that does not reach everywhere the old memory applied is
// refused unless --narrow-ok, which says what recall loses; a wider one is not.
func TestCorrectionNarrowerScope(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, req := range []RememberRequest{
		{Type: "infra", Title: "Builds run on box one", Body: "box one.", NoReview: true},
		{Type: "infra", Title: "Deploys use key A", Body: "key A.", Scope: "a:b", NoReview: true},
	} {
		if _, err := s.Remember(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	narrow := RememberRequest{Type: "infra", Title: "Builds run on box two", Body: "box two.", Scope: "a:b", Supersedes: "builds-run-on-box-one", NoReview: true}
	_, err := s.Remember(ctx, narrow)
	r, ok := IsRefusal(err)
	if !ok || r.Reason != "narrower-scope" || !cmp.Equal(r.Flags, []string{"--scope global", "--narrow-ok"}) {
		t.Fatalf("narrower correction: %v; want refused as narrower-scope", err)
	}
	want := `concepts/memory/builds-run-on-box-one.md applies in global; a correction in a:b does not reach everywhere it did.
Recall in global, and in every scope outside a:b, would lose the fact with nothing in its place. Pick one:
  the fact changed everywhere it applied   --scope global
  it differs only in a:b   save it there without --supersedes: it ranks first in a:b, and global keeps the old fact
  withdraw it everywhere; the correction holds only in a:b   --narrow-ok`
	if diff := cmp.Diff(want, r.Message); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	sideways := RememberRequest{Type: "infra", Title: "Deploys use key B", Body: "key B.", Scope: "a:c", Supersedes: "deploys-use-key-a", NoReview: true}
	if _, err := s.Remember(ctx, sideways); err == nil {
		t.Error("a correction beside the old scope was saved without --narrow-ok")
	}
	narrow.NarrowOK = true
	saved, err := s.Remember(ctx, narrow)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := saved.Said[len(saved.Said)-2], "  concepts/memory/builds-run-on-box-one.md applied in global: recall there, and in every scope outside a:b, no longer finds it nor this correction"; got != want {
		t.Errorf("said %q, want %q", got, want)
	}
	wider := RememberRequest{Type: "infra", Title: "Deploys use key C everywhere", Body: "key C.", Supersedes: "deploys-use-key-a", NoReview: true}
	if _, err := s.Remember(ctx, wider); err != nil {
		t.Errorf("a correction in a wider scope: %v", err)
	}
}
