package config

import (
	"strings"
	"testing"
)

func TestEmbeddings(t *testing.T) {
	for _, tc := range []struct{ yaml, err string }{
		{"embeddings:\n  url: http://127.0.0.1:11434/v1/embeddings\n  model: nomic-embed-text\n", ""},
		{"embeddings:\n  command: [embed, --jsonl]\n", ""},
		{"embeddings:\n  model: m\n", "bf.yaml: embeddings: expected exactly one of url and command"},
		{"embeddings:\n  url: http://x/v1/embeddings\n  command: [a]\n  model: m\n", "bf.yaml: embeddings: expected exactly one of url and command"},
		{"embeddings:\n  url: ftp://x/v1\n  model: m\n", "bf.yaml: embeddings.url: expected an http or https URL such as http://127.0.0.1:11434/v1/embeddings"},
		{"embeddings:\n  url: https://user:secret@x/v1/embeddings\n  model: m\n", "bf.yaml: embeddings.url: holds credentials; put the key in an environment variable and name it in key_env"},
		{"embeddings:\n  url: http://x/v1/embeddings\n", "bf.yaml: embeddings.model: required with url: the model name the server expects"},
		{"embeddings:\n  command: [a]\n  batch: 0\n", "batch"},
		{"embeddings:\n  command: [a]\n  dims: 3\n", "dims"},
		{"embeddings:\n  command: [a]\n  query_timeout: 0\n", "bf.yaml: embeddings.query_timeout: expected an integer from 1 to 60"},
		{"embeddings:\n  command: [a]\n  cooldown: 3601\n", "bf.yaml: embeddings.cooldown: expected an integer from 0 to 3600"},
	} {
		c, err := Parse("bf.yaml", []byte("version: 8\nname: t\n"+tc.yaml))
		if tc.err == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.yaml, err)
			} else if c.Embeddings.Timeout != defaultEmbedTimeout || c.Embeddings.Batch != defaultEmbedBatch ||
				c.Embeddings.QueryTimeout != defaultQueryTimeout || c.Embeddings.Cooldown != defaultEmbedCooldown {
				t.Errorf("%q: defaults %+v", tc.yaml, c.Embeddings)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: got %v, want %q", tc.yaml, err, tc.err)
		}
	}
}

func TestAsk(t *testing.T) {
	for _, tc := range []struct{ yaml, err string }{
		{"ask:\n  url: http://127.0.0.1:8080/v1/chat/completions\n  model: llama3\n", ""},
		{"ask:\n  command: [model-harness, --json]\n", ""},
		{"ask:\n  model: m\n", "bf.yaml: ask: expected exactly one of url and command"},
		{"ask:\n  url: http://u:p@x/v1/chat/completions\n  model: m\n", "bf.yaml: ask.url: holds credentials; put the key in an environment variable and name it in key_env"},
		{"ask:\n  url: http://x/v1/chat/completions\n", "bf.yaml: ask.model: required with url: the model name the server expects"},
		{"ask:\n  command: [a]\n  timeout: 0\n", "timeout"},
	} {
		c, err := Parse("bf.yaml", []byte("version: 8\nname: t\n"+tc.yaml))
		if tc.err == "" {
			if err != nil || c.Ask.Timeout != defaultAskTimeout {
				t.Errorf("%q: %v %+v", tc.yaml, err, c)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: got %v, want %q", tc.yaml, err, tc.err)
		}
	}
}
