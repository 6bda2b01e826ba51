package config

import (
	"maps"
	"slices"

	"github.com/bfgo/bf/libbf/yamlx"
)

// removedAssistantKeys are assistant settings of earlier releases, each with what replaces
// it. They fail like any unknown key, but the message names the fix.
var removedAssistantKeys = []struct{ key, fix string }{
	{"refresh", "removed; declare named schedules instead: schedules: {NAME: {every: SECONDS}}"},
	{"lookback", "removed; a schedule run's window starts at its previous run"},
	{"outputs", "removed; name one channel in post, and messages are answered in their own conversation"},
	{"triggers", "removed; run the assistant on schedules, or gate them with when: {sources: [SENSOR]}"},
	{"text", "removed; a prompt lives in one place, its file: write it to prompts/NAME.md, or name another file with prompt: PATH"},
	{"status", "removed; use reply: {path: POINTER} to let the harness choose whether to speak"},
}

// checkRemoved refuses the removed assistant settings before the strict shape check, so
// the message says what replaces them.
func checkRemoved(file string, top map[string]any) error {
	for _, name := range slices.Sorted(maps.Keys(child(top, "assistants"))) {
		a := child(child(top, "assistants"), name)
		for _, k := range removedAssistantKeys {
			if _, ok := a[k.key]; ok {
				return yamlx.Errorf(file, yamlx.Join(yamlx.Join("assistants", name), k.key), "%s", k.fix)
			}
		}
	}
	return nil
}
