package memory

import (
	"os"
	"testing"
)

// The payloads the host sends, as recorded in testdata/hooks.
func TestParseHookPayloads(t *testing.T) {
	for _, c := range []struct {
		file, event, prompt string
	}{
		{"testdata/hooks/session-start.json", EventSessionStart, ""},
		{"testdata/hooks/user-prompt.json", EventUserPrompt, "why is the cache lock held per brain when two agents write?"},
	} {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		in, err := ParseHook(data, c.event)
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if in.Event != c.event || in.Prompt != c.prompt || in.Cwd != "/home/ana/code" {
			t.Errorf("%s: %+v", c.file, in)
		}
		other := EventUserPrompt
		if c.event == EventUserPrompt {
			other = EventSessionStart
		}
		if _, err := ParseHook(data, other); err == nil {
			t.Errorf("%s accepted as %s", c.file, other)
		}
	}
}
