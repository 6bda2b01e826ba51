package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/bfgo/bf/libbf/brain"
	"github.com/bfgo/bf/libbf/config"
)

// hints are a tool's annotations as four booleans.
type hints struct{ ReadOnly, Destructive, Idempotent, OpenWorld bool }

func hintsOf(e effects) hints {
	a := e.annotation("t")
	return hints{*a.ReadOnlyHint, *a.DestructiveHint, *a.IdempotentHint, *a.OpenWorldHint}
}

// TestEffectsByProviders derives each tool's annotations and effect sentence from the
// providers a selection declares.
func TestEffectsByProviders(t *testing.T) {
	command := config.Command{"tools/p.sh"}
	reads := hints{ReadOnly: true, Idempotent: true}
	writes := hints{}
	remember := hints{Destructive: true}
	tests := []struct {
		name       string
		configs    []*config.Config
		want       providers
		search     hints
		searchSays string
		ask        *hints
		askSays    string
	}{
		{
			name:       "no providers",
			configs:    []*config.Config{{}},
			search:     reads,
			searchSays: "Writes no file. Runs no program. Uses no network.",
		},
		{
			name:       "commands",
			configs:    []*config.Config{{Embeddings: &config.Embeddings{Command: command}, Ask: &config.Ask{Command: command}}},
			want:       providers{embedCommand: true, askCommand: true},
			search:     writes,
			searchSays: "Writes the brain's logs/embeddings.log (in fused mode). Runs the embeddings command bf.yaml declares (in fused mode). Uses no network.",
			ask:        &writes,
			askSays:    "Writes the question allowance in the bf state folder; the brain's logs/ask.log; the brain's logs/embeddings.log. Runs the ask command bf.yaml declares; the embeddings command bf.yaml declares. Uses no network.",
		},
		{
			name:       "URLs",
			configs:    []*config.Config{{Embeddings: &config.Embeddings{URL: "http://127.0.0.1:1/v1/embeddings"}, Ask: &config.Ask{URL: "http://127.0.0.1:1/v1/chat/completions"}}},
			want:       providers{embedURL: true, askURL: true},
			search:     hints{ReadOnly: true, Idempotent: true, OpenWorld: true},
			searchSays: "Writes no file. Runs no program. Uses the network: sends the query to the embeddings URL bf.yaml declares (in fused mode).",
			ask:        &hints{OpenWorld: true},
			askSays:    "Writes the question allowance in the bf state folder. Runs no program. Uses the network: sends the question and the retrieved blocks, secrets redacted, to the ask URL bf.yaml declares; the question to the embeddings URL bf.yaml declares.",
		},
		{
			// Search reaches every selected brain's provider; ask needs one brain.
			name:       "two brains",
			configs:    []*config.Config{{Embeddings: &config.Embeddings{Command: command}}, {Embeddings: &config.Embeddings{URL: "http://127.0.0.1:1/v1/embeddings"}, Ask: &config.Ask{Command: command}}},
			want:       providers{embedCommand: true, embedURL: true},
			search:     hints{OpenWorld: true},
			searchSays: "Writes the brain's logs/embeddings.log (in fused mode). Runs the embeddings command bf.yaml declares (in fused mode). Uses the network: sends the query to the embeddings URL bf.yaml declares (in fused mode).",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel := &brain.Selection{}
			for _, c := range tc.configs {
				sel.Brains = append(sel.Brains, &brain.Brain{Config: c})
			}
			p := providersOf(sel)
			if diff := cmp.Diff(tc.want, p, cmp.AllowUnexported(providers{})); diff != "" {
				t.Errorf("providers (-want +got):\n%s", diff)
			}
			got := map[string]hints{"search": hintsOf(p.search()), "read": hintsOf(p.read()),
				"remember": hintsOf(p.remember()), "recall": hintsOf(p.recall()), "brief": hintsOf(p.brief())}
			want := map[string]hints{"search": tc.search, "read": reads, "remember": remember, "recall": writes, "brief": writes}
			if tc.ask != nil {
				got["ask"], want["ask"] = hintsOf(p.ask()), *tc.ask
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
			if got := p.search().sentence(); got != tc.searchSays {
				t.Errorf("search says %q\nwant %q", got, tc.searchSays)
			}
			if tc.ask != nil {
				if got := p.ask().sentence(); got != tc.askSays {
					t.Errorf("ask says %q\nwant %q", got, tc.askSays)
				}
			} else if askConfig(sel) != nil {
				t.Errorf("ask offered for %d brains", len(sel.Brains))
			}
		})
	}
}
