package memory

import (
	"testing"
)

// FuzzParseHook: any bytes on stdin give an event or an input error, never a panic.
func FuzzParseHook(f *testing.F) {
	for _, s := range []string{
		``,
		`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"UserPromptSubmit","prompt":"why?"}`,
		`{"hook_event_name":"SessionStart","source":"startup"}`,
		`{"prompt":1}`,
		`{} {}`,
		`[1,2]`,
		"\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := parseHook(data, EventUserPrompt)
		if err == nil && in.Event != "" && in.Event != EventUserPrompt {
			t.Fatalf("accepted event %q", in.Event)
		}
	})
}

// FuzzParse: a hand-edited memory note parses or reports problems, never panics, and a
// memory without problems renders to a note that parses back to the same fields.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"---\ntype: gotcha\ntitle: T\nfields:\n  importance: 4\n  saved: \"2026-01-01T00:00:00Z\"\n  scope: a:b\n---\nBody\n",
		"---\ntype: rumour\n---\n",
		"---\ntype: fact\ntitle: x\nfields:\n  importance: 9\n  supersedes: [bf://b/concepts/memory/y.md]\n---\n",
		"no front matter",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, probs := Parse(Folder+"/x.md", data)
		if len(probs) > 0 || m == nil {
			return
		}
		out, err := Render(m, "b")
		if err != nil {
			t.Fatal(err)
		}
		again, probs := Parse(m.Ref, out)
		if len(probs) > 0 {
			t.Fatalf("rendered note does not parse: %v\n%s", probs, out)
		}
		if again.Title != m.Title || again.Type != m.Type || again.Scope != m.Scope || again.Importance != m.Importance ||
			again.Confidence != m.Confidence || again.Body != m.Body {
			t.Fatalf("round trip changed the memory:\n%+v\n%+v", m, again)
		}
	})
}
