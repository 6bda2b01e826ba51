package brain

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// world builds the brains most selection cases share:
//
//	~/brains/work  name work, brains: team → ../team
//	~/brains/team  name team, brains: deep → ../deep (never reached from work: no recursion)
//	~/brains/deep  name deep
//	~/brains/solo  name solo
//	~/brains/broken  invalid bf.yaml
func world(f *fixture) {
	f.brain("brains/work", "work", "team", "../team")
	f.brain("brains/team", "team", "deep", "../deep")
	f.brain("brains/deep", "deep")
	f.brain("brains/solo", "solo")
	f.write("brains/broken/bf.yaml", "version: 8\nname: broken\nbogus: 1\n")
}

func worldWith(extra func(f *fixture)) func(f *fixture) {
	return func(f *fixture) { world(f); extra(f) }
}

type selectCase struct {
	name     string
	setup    func(f *fixture)
	purposes []Purpose // default: all three
	wd       string    // below home; default: home
	vars     map[string]string
	euid     int // 0: the current account; else an offset
	req      Request
	want     []string // "name ~/root"
	problems []Problem
	wantErr  string
	kind     Kind
}

func flag(v string) Request { return Request{Brain: v, BrainGiven: true} }

var (
	all           = []Purpose{Retrieval, Checks, Execution}
	rc            = []Purpose{Retrieval, Checks}
	onlyR         = []Purpose{Retrieval}
	onlyC         = []Purpose{Checks}
	onlyE         = []Purpose{Execution}
	absentProblem = func(name string) Problem { return Problem{Brain: name, Error: msgAbsent} }
)

func refProblem(brain, text string) Problem {
	return Problem{Brain: brain, File: "bf.yaml", Error: text}
}

func runSelect(t *testing.T, tests []selectCase) {
	t.Helper()
	for _, tt := range tests {
		purposes := tt.purposes
		if purposes == nil {
			purposes = all
		}
		for _, p := range purposes {
			t.Run(tt.name+"/"+p.String(), func(t *testing.T) {
				f := newFixture(t)
				if tt.setup != nil {
					tt.setup(f)
				}
				if tt.wd != "" {
					f.wd = f.path(tt.wd)
					os.MkdirAll(f.wd, 0o700)
				}
				for k, v := range tt.vars {
					f.vars[k] = v
				}
				if tt.euid != 0 {
					f.euid = os.Geteuid() + tt.euid
				}
				req := tt.req
				req.Purpose = p
				sel, err := f.env().Select(req)
				if diff := cmp.Diff(tt.wantErr, f.errText(err)); diff != "" {
					t.Fatalf("error (-want +got):\n%s", diff)
				}
				if err != nil {
					want := tt.kind
					if want == 0 {
						want = failure
					}
					if KindOf(err) != want {
						t.Errorf("kind = %v, want %v", KindOf(err), want)
					}
					return
				}
				var got []string
				for _, b := range sel.Brains {
					got = append(got, b.Name+" "+f.rel(b.Root))
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("brains (-want +got):\n%s", diff)
				}
				for i := range sel.Problems {
					sel.Problems[i].Error = f.rel(sel.Problems[i].Error)
				}
				if diff := cmp.Diff(tt.problems, sel.Problems, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSelectFlag(t *testing.T) {
	runSelect(t, []selectCase{
		{name: "path", setup: world, req: flag("~/brains/solo"), want: []string{"solo ~/brains/solo"}},
		{name: "path adds references", setup: world, purposes: rc, req: flag("~/brains/work"),
			want: []string{"work ~/brains/work", "team ~/brains/team"}},
		{name: "execution adds no references", setup: world, purposes: onlyE, req: flag("~/brains/work"),
			want: []string{"work ~/brains/work"}},
		{name: "relative path", setup: world, wd: "brains", req: flag("./solo"), want: []string{"solo ~/brains/solo"}},
		{name: "parent path", setup: world, wd: "elsewhere", req: flag("../brains/solo"), want: []string{"solo ~/brains/solo"}},
		{name: "dot is the working directory", setup: world, wd: "brains/solo", req: flag("."), want: []string{"solo ~/brains/solo"}},
		{name: "absent path fails", setup: world, req: flag("~/nowhere"), wantErr: "--brain: ~/nowhere: brain folder does not exist"},
		{name: "invalid brain fails and never falls through", setup: world, wd: "brains/solo",
			vars: map[string]string{"BF_BRAIN": "~/brains/work"}, req: flag("~/brains/broken"),
			wantErr: "--brain: ~/brains/broken: bf.yaml: bogus: unknown key"},
		{name: "empty value is invalid input", setup: world, wd: "brains/solo", req: flag(""),
			wantErr: "--brain: empty value; pass a brain NAME or PATH, or leave the flag out", kind: Invalid},
		{name: "empty value is invalid even with BF_BRAIN", setup: world, vars: map[string]string{"BF_BRAIN": "~/brains/solo"}, req: flag(""),
			wantErr: "--brain: empty value; pass a brain NAME or PATH, or leave the flag out", kind: Invalid},
		{name: "control character is invalid input", setup: world, req: flag("so\nlo"),
			wantErr: "--brain: a brain NAME or PATH must not contain control characters", kind: Invalid},
		{name: "other user's home is invalid input", setup: world, req: flag("~bob/brain"),
			wantErr: "--brain: only ~ and ~/ are expanded in brain paths; write the full path", kind: Invalid},
		{name: "registered name", setup: worldWith(func(f *fixture) { f.register("work", "~/brains/work", "solo", "~/brains/solo") }),
			purposes: onlyR, req: flag("work"), want: []string{"work ~/brains/work", "team ~/brains/team"}},
		{name: "registered name for execution", setup: worldWith(func(f *fixture) { f.register("work", "~/brains/work") }),
			purposes: onlyE, req: flag("work"), want: []string{"work ~/brains/work"}},
		{name: "registered name absent fails", setup: worldWith(func(f *fixture) { f.register("ghost", "~/gone") }),
			req: flag("ghost"), wantErr: "--brain: registered brain ghost is absent on this machine (~/gone); restore the folder, or register the brain again where it now lives"},
		{name: "registered name whose bf.yaml names another", setup: worldWith(func(f *fixture) { f.register("alias", "~/brains/solo") }),
			req: flag("alias"), wantErr: "--brain: ~/brains/solo is registered as alias but its bf.yaml names solo; register it again with bf register"},
		{name: "enclosing brain's own name", setup: world, wd: "brains/solo/projects", req: flag("solo"), want: []string{"solo ~/brains/solo"}},
		{name: "enclosing brain's reference", setup: world, purposes: rc, wd: "brains/work", req: flag("team"),
			want: []string{"team ~/brains/team", "deep ~/brains/deep"}},
		{name: "enclosing brain's reference cannot execute", setup: world, purposes: onlyE, wd: "brains/work", req: flag("team"),
			wantErr: "--brain: brain team is neither registered nor the enclosing brain; pass --brain PATH"},
		{name: "folder in the working directory", setup: world, purposes: rc, wd: "brains", req: flag("solo"), want: []string{"solo ~/brains/solo"}},
		{name: "folder in the working directory cannot execute", setup: world, purposes: onlyE, wd: "brains", req: flag("solo"),
			wantErr: "--brain: brain solo is neither registered nor the enclosing brain; pass --brain PATH"},
		{name: "unknown name", setup: world, purposes: rc, req: flag("nope"),
			wantErr: "--brain: no brain named nope: it is not registered, not the enclosing brain or one of its brains: references, and the working directory has no folder of that name; register it or pass --brain PATH"},
		{name: "registered name claimed by the enclosing brain's reference", purposes: all,
			setup: worldWith(func(f *fixture) { f.brain("other/team", "team"); f.register("team", "~/other/team") }),
			wd:    "brains/work", req: flag("team"),
			wantErr: "--brain: ambiguous brain name team: the registry and the enclosing brain's brains: reference name different folders; pass --brain PATH"},
		{name: "registered name claimed by the enclosing brain", purposes: all,
			setup: worldWith(func(f *fixture) { f.brain("clone/work", "work"); f.register("work", "~/clone/work") }),
			wd:    "brains/work/projects", req: flag("work"),
			wantErr: "--brain: ambiguous brain name work: the registry and the enclosing brain name different folders; pass --brain PATH"},
		{name: "registered absent name claimed by the enclosing brain", purposes: all,
			setup: worldWith(func(f *fixture) { f.register("work", "~/gone") }),
			wd:    "brains/work", req: flag("work"),
			wantErr: "--brain: ambiguous brain name work: the registry and the enclosing brain name different folders; pass --brain PATH"},
		{name: "registry and enclosing brain agree", purposes: onlyE,
			setup: worldWith(func(f *fixture) { f.symlink(f.path("brains"), "link"); f.register("work", "~/link/work") }),
			wd:    "brains/work", req: flag("work"), want: []string{"work ~/link/work"}},
		{name: "enclosing brain's broken reference of that name", purposes: all,
			setup: func(f *fixture) { f.brain("w", "work", "team", "../nowhere") }, wd: "w", req: flag("team"),
			wantErr: "--brain: ~/w: the enclosing bf.yaml declares brains.team, which is missing: the folder does not exist; fix it or pass --brain PATH"},
		{name: "broken registry does not block a path", setup: worldWith(func(f *fixture) { f.write(".config/bf/config.yaml", "nope: 1\n") }),
			req: flag("~/brains/solo"), want: []string{"solo ~/brains/solo"}},
		{name: "broken registry blocks a name", setup: worldWith(func(f *fixture) { f.write(".config/bf/config.yaml", "nope: 1\n") }),
			req: flag("solo"), wantErr: "--brain: ~/.config/bf/config.yaml: nope: unknown key"},
	})
}

func TestSelectUnownedEnclosingClaimsNoName(t *testing.T) {
	for _, p := range all {
		f := newFixture(t)
		world(f)
		f.brain("other/team", "team")
		f.register("team", "~/other/team")
		// The enclosing bf.yaml is a symlink, so the brain does not count: its brains:
		// reference to another folder named team is no ambiguity.
		os.Remove(f.path("brains/work/bf.yaml"))
		f.symlink(f.path("brains/solo/bf.yaml"), "brains/work/bf.yaml")
		f.wd = f.path("brains/work")
		sel, err := f.env().Select(Request{Purpose: p, Brain: "team", BrainGiven: true})
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		if sel.Brains[0].Root != f.path("other/team") {
			t.Errorf("%v: got %s", p, sel.Brains[0].Root)
		}
	}
}

func TestSelectEnv(t *testing.T) {
	runSelect(t, []selectCase{
		{name: "path beats the enclosing brain", setup: world, wd: "brains/work", vars: map[string]string{"BF_BRAIN": "~/brains/solo"},
			want: []string{"solo ~/brains/solo"}},
		{name: "flag beats BF_BRAIN", setup: world, vars: map[string]string{"BF_BRAIN": "~/brains/solo"}, req: flag("~/brains/deep"),
			want: []string{"deep ~/brains/deep"}},
		{name: "registered name", setup: worldWith(func(f *fixture) { f.register("solo", "~/brains/solo") }),
			vars: map[string]string{"BF_BRAIN": "solo"}, want: []string{"solo ~/brains/solo"}},
		{name: "reference name cannot execute", setup: world, purposes: onlyE, wd: "brains/work", vars: map[string]string{"BF_BRAIN": "team"},
			wantErr: "BF_BRAIN: brain team is neither registered nor the enclosing brain; pass --brain PATH"},
		{name: "absent path fails, never falls through", setup: world, wd: "brains/work", vars: map[string]string{"BF_BRAIN": "~/nowhere"},
			wantErr: "BF_BRAIN: ~/nowhere: brain folder does not exist"},
		{name: "empty BF_BRAIN is unset", setup: world, wd: "brains/solo", vars: map[string]string{"BF_BRAIN": ""},
			want: []string{"solo ~/brains/solo"}},
		{name: "control character is invalid input", setup: world, vars: map[string]string{"BF_BRAIN": "a\tb"},
			wantErr: "BF_BRAIN: a brain NAME or PATH must not contain control characters", kind: Invalid},
	})
}

func TestSelectEnclosing(t *testing.T) {
	runSelect(t, []selectCase{
		{name: "nearest ancestor", setup: world, purposes: rc, wd: "brains/work/projects/deep/er",
			want: []string{"work ~/brains/work", "team ~/brains/team"}},
		{name: "nearest ancestor for execution", setup: world, purposes: onlyE, wd: "brains/work/projects",
			want: []string{"work ~/brains/work"}},
		{name: "nested brain wins", setup: worldWith(func(f *fixture) { f.brain("brains/work/inner", "inner") }), wd: "brains/work/inner/x",
			want: []string{"inner ~/brains/work/inner"}},
		{name: "beats the registry", setup: worldWith(func(f *fixture) { f.register("deep", "~/brains/deep") }), wd: "brains/solo",
			want: []string{"solo ~/brains/solo"}},
		{name: "bf.yaml symlink fails", setup: worldWith(func(f *fixture) {
			f.register("deep", "~/brains/deep")
			f.symlink(f.path("brains/solo/bf.yaml"), "brains/link/bf.yaml")
		}), wd: "brains/link",
			wantErr: "~/brains/link: bf.yaml is not a regular file owned by you; pass --brain PATH to select a brain"},
		{name: "bf.yaml of another account fails", setup: world, euid: 1000, wd: "brains/solo",
			wantErr: "~/brains/solo: bf.yaml is not a regular file owned by you; pass --brain PATH to select a brain"},
		{name: "invalid bf.yaml fails", setup: worldWith(func(f *fixture) { f.register("deep", "~/brains/deep") }), wd: "brains/broken",
			wantErr: "~/brains/broken: bf.yaml: bogus: unknown key"},
	})
}

func TestSelectAutomatic(t *testing.T) {
	runSelect(t, []selectCase{
		{name: "every registered brain present", purposes: onlyR,
			setup:    worldWith(func(f *fixture) { f.register("work", "~/brains/work", "solo", "~/brains/solo", "ghost", "~/gone") }),
			want:     []string{"solo ~/brains/solo", "work ~/brains/work", "team ~/brains/team"},
			problems: []Problem{absentProblem("ghost")}},
		{name: "all absent", purposes: onlyR, setup: worldWith(func(f *fixture) { f.register("ghost", "~/gone", "ghoul", "/nowhere/at/all") }),
			wantErr: "registered brains are absent on this machine: ghost, ghoul; restore them or register them again where they now live"},
		{name: "nothing registered", purposes: rc, setup: world,
			wantErr: "no brain selected; pass --brain NAME|PATH, run inside a brain, or register one with bf register"},
		{name: "broken and mismatched brains are skipped", purposes: onlyR,
			setup: worldWith(func(f *fixture) {
				f.register("broken", "~/brains/broken", "alias", "~/brains/deep", "solo", "~/brains/solo")
			}),
			want: []string{"solo ~/brains/solo"},
			problems: []Problem{
				{Brain: "alias", Error: "registered brain's bf.yaml names deep; register it again with bf register"},
				{Brain: "broken", Error: "registered brain cannot be opened: ~/brains/broken: bf.yaml: bogus: unknown key"},
			}},
		{name: "only broken brains", purposes: onlyR,
			setup:   worldWith(func(f *fixture) { f.register("broken", "~/brains/broken") }),
			wantErr: "no registered brain can answer: broken: registered brain cannot be opened: ~/brains/broken: bf.yaml: bogus: unknown key"},
		{name: "broken registry", purposes: rc, setup: worldWith(func(f *fixture) { f.write(".config/bf/config.yaml", "brains:\n  A:\n    path: /a\n") }),
			wantErr: "~/.config/bf/config.yaml: brains.A: brain names must match ^[a-z][a-z0-9-]{0,63}$"},
		{name: "the only registered brain present", purposes: onlyC,
			setup: worldWith(func(f *fixture) { f.register("solo", "~/brains/solo", "ghost", "~/gone") }),
			want:  []string{"solo ~/brains/solo"}},
		{name: "the only registered brain with references", purposes: onlyC,
			setup: worldWith(func(f *fixture) { f.register("work", "~/brains/work") }),
			want:  []string{"work ~/brains/work", "team ~/brains/team"}},
		{name: "several registered brains", purposes: onlyC,
			setup:   worldWith(func(f *fixture) { f.register("work", "~/brains/work", "solo", "~/brains/solo") }),
			wantErr: "several registered brains are present (solo, work); pass --brain NAME"},
		{name: "the only registered brain is broken", purposes: onlyC,
			setup:   worldWith(func(f *fixture) { f.register("broken", "~/brains/broken") }),
			wantErr: "~/brains/broken: bf.yaml: bogus: unknown key"},
		{name: "execution never uses the registry", purposes: onlyE,
			setup:   worldWith(func(f *fixture) { f.register("solo", "~/brains/solo") }),
			wantErr: "pass --brain PATH or run inside the brain; registered brains are selected for retrieval only"},
	})
}

func TestSelectReferences(t *testing.T) {
	refs := func(f *fixture) {
		world(f)
		f.write("brains/file", "")
		f.brain("brains/hub", "hub",
			"team", "../team",
			"none", "../none",
			"broken", "../broken",
			"other", "../solo",
			"file", "../file",
			"deep", "~/brains/deep",
			"abs", f.path("brains/abs"))
		f.brain("brains/abs", "abs")
	}
	runSelect(t, []selectCase{
		{name: "problems leave the others answering", purposes: rc, setup: refs, req: flag("~/brains/hub"),
			want: []string{"hub ~/brains/hub", "abs ~/brains/abs", "deep ~/brains/deep", "team ~/brains/team"},
			problems: []Problem{
				refProblem("hub", "brains.broken: referenced brain is invalid: ~/brains/broken: bf.yaml: bogus: unknown key"),
				refProblem("hub", "brains.file: referenced brain is invalid: not a folder"),
				refProblem("hub", "brains.none: referenced brain is missing: the folder does not exist"),
				refProblem("hub", "brains.other: referenced brain has a different name: its bf.yaml names solo"),
			}},
		{name: "execution reads no reference", purposes: onlyE, setup: refs, req: flag("~/brains/hub"),
			want: []string{"hub ~/brains/hub"}},
		{name: "relative paths start at the declaring brain", purposes: rc, setup: world, wd: "brains/solo/x", vars: map[string]string{"BF_BRAIN": "~/brains/work"},
			want: []string{"work ~/brains/work", "team ~/brains/team"}},
		{name: "no recursion", purposes: onlyR, setup: worldWith(func(f *fixture) { f.register("work", "~/brains/work") }),
			want: []string{"work ~/brains/work", "team ~/brains/team"}},
		{name: "two folders claiming a name are both excluded", purposes: onlyR,
			setup: worldWith(func(f *fixture) {
				f.brain("x/a", "a", "shared", "../s1")
				f.brain("x/b", "b", "shared", "../s2")
				f.brain("x/s1", "shared")
				f.brain("x/s2", "shared")
				f.register("a", "~/x/a", "b", "~/x/b")
			}),
			want:     []string{"a ~/x/a", "b ~/x/b"},
			problems: []Problem{{Brain: "shared", Error: msgDuplicate}}},
		{name: "a reference claiming a registered root's name excludes both", purposes: onlyR,
			setup: worldWith(func(f *fixture) {
				f.brain("x/team", "team")
				f.brain("x/w", "w", "team", "../team")
				f.register("team", "~/brains/team", "w", "~/x/w")
			}),
			// deep, team's own reference, still answers: its name is unique.
			want:     []string{"w ~/x/w", "deep ~/brains/deep"},
			problems: []Problem{{Brain: "team", Error: msgDuplicate}}},
		{name: "one folder by two paths is kept once", purposes: onlyR,
			setup: worldWith(func(f *fixture) {
				f.symlink(f.path("brains"), "link")
				f.brain("x/a", "a", "team", "~/brains/team")
				f.brain("x/b", "b", "team", "~/link/team")
				f.register("a", "~/x/a", "b", "~/x/b")
			}),
			want: []string{"a ~/x/a", "b ~/x/b", "team ~/brains/team"}},
		{name: "a registered root reached again by a reference is kept once", purposes: onlyR,
			setup: worldWith(func(f *fixture) {
				f.symlink(f.path("brains"), "link")
				f.register("work", "~/link/work", "team", "~/brains/team")
			}),
			want: []string{"team ~/brains/team", "work ~/link/work", "deep ~/brains/deep"}},
	})
}

func TestSelectInaccessibleReference(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("permissions do not apply to root")
	}
	f := newFixture(t)
	world(f)
	f.brain("brains/hub", "hub", "locked", "../locked/inner")
	f.brain("brains/locked/inner", "locked")
	os.Chmod(f.path("brains/locked"), 0)
	t.Cleanup(func() { os.Chmod(f.path("brains/locked"), 0o700) })
	sel, err := f.env().Select(Request{Purpose: Retrieval, Brain: "~/brains/hub", BrainGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Problem{refProblem("hub", "brains.locked: referenced brain is inaccessible: permission denied")}
	if diff := cmp.Diff(want, sel.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestSelectErrorsAreTyped(t *testing.T) {
	f := newFixture(t)
	_, err := f.env().Select(Request{Purpose: Retrieval, BrainGiven: true})
	if !errors.Is(err, errInvalid) || KindOf(err) != Invalid {
		t.Errorf("empty --brain: %v", err)
	}
	_, err = f.env().Select(Request{Purpose: Execution})
	var e *Error
	if !errors.As(err, &e) || e.Kind != failure || errors.Is(err, errInvalid) {
		t.Errorf("execution without a brain: %#v", err)
	}
}
