package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWording(t *testing.T) {
	s := &Server{inputs: map[string]input{"search": searchInput, "read": readInput,
		"remember": rememberInput, "recall": recallInput, "brief": briefInput}}
	tests := []struct{ tool, in, want string }{
		{"recall", "invalid input: --scope: expected levels of lowercase letters", "invalid input: scope: expected levels of lowercase letters"},
		{"brief", "invalid input: --bytes: expected an integer from 256 to 1048576", "invalid input: bytes: expected an integer from 256 to 1048576"},
		{"remember", "invalid input: --no-review: give either --review DATE or --no-review, not both",
			"invalid input: no_review: give either review: DATE or no_review: true, not both"},
		{"remember", "invalid input: --fork-ok: applies only with --supersedes REF", "invalid input: fork_ok: applies only with supersedes: REF"},
		{"remember", `invalid input: --confidence: confirmed needs a source: pass --source TEXT ("stated by the user" counts for a preference) or --ref REF, or save it as --confidence reported`,
			`invalid input: confidence: confirmed needs a source: pass source: TEXT ("stated by the user" counts for a preference) or ref: REF, or save it as confidence: "reported"`},
		{"remember", `invalid input: --source: is blank; say where it was checked, such as --source "stated by the user"`,
			`invalid input: source: is blank; say where it was checked, such as source: "stated by the user"`},
		{"remember", "invalid input: --type: concepts/memory/a.md is a fact memory; keep --type fact or save a correction with --supersedes concepts/memory/a.md",
			`invalid input: type: concepts/memory/a.md is a fact memory; keep type: "fact" or save a correction with supersedes: "concepts/memory/a.md"`},
		{"remember", `invalid input: --supersedes: no memory "x"; give a ref that bf recall printed, such as concepts/memory/NAME.md`,
			`invalid input: supersedes: no memory "x"; give a ref that the recall tool printed, such as concepts/memory/NAME.md`},
		// A refusal's ways forward, and the command that saves the same fact in better words.
		{"remember", "  same fact, better words   --update (the old body is kept in history)\n  the fact CHANGED          --supersedes concepts/memory/a.md",
			"  same fact, better words   update: true (the old body is kept in history)\n  the fact CHANGED          supersedes: \"concepts/memory/a.md\""},
		{"remember", `  same fact, better words  bf remember --brain '/home/me/my brain' --type infra --scope global --title 'It'\''s stage-3' --body 'x
y' --update --importance 4 --pin` + "\n  genuinely separate     --allow-duplicate",
			`  same fact, better words  the remember tool with type: "infra", scope: "global", title: "It's stage-3", body: "x\ny", update: true, importance: 4, pin: true` + "\n  genuinely separate     allow_duplicate: true"},
		{"remember", "--supersedes concepts/memory/a.md", `supersedes: "concepts/memory/a.md"`},
		// What no tool argument names is left as written: a person's command, a flag of
		// another tool, a dash inside a word.
		{"remember", "a person accepts it (bf review --accept concepts/memory/a.md)", "a person accepts it (bf review --accept concepts/memory/a.md)"},
		{"recall", "pass --source TEXT", "pass --source TEXT"},
		{"remember", "stage--3 and --unknown-flag", "stage--3 and --unknown-flag"},
		{"remember", "bf recalled", "bf recalled"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, s.wording(tt.tool, tt.in)); diff != "" {
			t.Errorf("wording(%s, %q) (-want +got):\n%s", tt.tool, tt.in, diff)
		}
	}
}
