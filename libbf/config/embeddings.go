package config

import (
	"net/url"
	"strings"
)

// Embeddings declares the provider of the dense strategy's vectors: an OpenAI-compatible
// embeddings URL (a local Ollama or llama.cpp server, for example) or a command reading
// texts as JSON Lines on stdin ({"text": …} per line) and printing one vector per line
// ({"embedding": [numbers]}).
type Embeddings struct {
	// URL is the full /v1/embeddings endpoint, http or https.
	URL string `json:"url,omitempty"`
	// Model is the model name sent to the URL; with a command it only tells vectors apart.
	Model string `json:"model,omitempty"`
	// Command is the program's argv, run without a shell.
	Command Command `json:"command,omitempty"`
	// KeyEnv names the environment variable holding the URL's API key (never the key).
	KeyEnv string `json:"key_env,omitempty"`
	// Timeout is the limit in seconds of one request or command run (1–600, default 60).
	Timeout int `json:"timeout,omitempty"`
	// Batch is how many texts one request or run embeds (1–512, default 32).
	Batch int `json:"batch,omitempty"`
}

// Defaults and limits of embeddings.
const (
	DefaultEmbedTimeout = 60
	DefaultEmbedBatch   = 32
)

// embeddings checks the embeddings provider and fills its defaults.
func (d *decoder) embeddings(top map[string]any) error {
	e := d.c.Embeddings
	if e == nil {
		return nil
	}
	r := child(top, "embeddings")
	switch {
	case (e.URL == "") == (len(e.Command) == 0):
		return d.fail("embeddings", "expected exactly one of url and command")
	case e.URL != "":
		u, err := url.Parse(e.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return d.fail("embeddings.url", "expected an http or https URL such as http://127.0.0.1:11434/v1/embeddings")
		}
		if u.User != nil {
			return d.fail("embeddings.url", "holds credentials; put the key in an environment variable and name it in key_env")
		}
		if strings.TrimSpace(e.Model) == "" {
			return d.fail("embeddings.model", "required with url: the model name the server expects")
		}
	default:
		if strings.TrimSpace(e.Command[0]) == "" {
			return d.fail("embeddings.command", "expected a program as the first item")
		}
	}
	if err := integer(d, r, "embeddings", "timeout", &e.Timeout, DefaultEmbedTimeout, 1, 600); err != nil {
		return err
	}
	return integer(d, r, "embeddings", "batch", &e.Batch, DefaultEmbedBatch, 1, 512)
}

// ModelName is what tells one provider's vectors from another's: the model, else the
// command line.
func (e *Embeddings) ModelName() string {
	if e.Model != "" {
		return e.Model
	}
	return strings.Join(e.Command, " ")
}
