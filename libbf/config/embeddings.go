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
	// QueryTimeout is the limit in seconds of a search's query embedding (1–60, default
	// 2): a search waits for its query vector far less than a build waits for a batch.
	QueryTimeout int `json:"query_timeout,omitempty"`
	// Cooldown is how many seconds searches skip the provider after its query embedding
	// failed (0–3,600, default 60; 0 retries every search).
	Cooldown int `json:"cooldown,omitempty"`
}

// Defaults and limits of embeddings.
const (
	defaultEmbedTimeout  = 60
	defaultEmbedBatch    = 32
	defaultQueryTimeout  = 2
	defaultEmbedCooldown = 60
)

// embeddings checks the embeddings provider and fills its defaults.
func (d *decoder) embeddings(top map[string]any) error {
	e := d.c.Embeddings
	if e == nil {
		return nil
	}
	r := child(top, "embeddings")
	if err := d.endpoint("embeddings", e.URL, e.Model, e.Command, "http://127.0.0.1:11434/v1/embeddings"); err != nil {
		return err
	}
	if err := integer(d, r, "embeddings", "timeout", &e.Timeout); err != nil {
		return err
	}
	if err := integer(d, r, "embeddings", "batch", &e.Batch); err != nil {
		return err
	}
	if err := integer(d, r, "embeddings", "query_timeout", &e.QueryTimeout); err != nil {
		return err
	}
	return integer(d, r, "embeddings", "cooldown", &e.Cooldown)
}

// endpoint checks a model endpoint declared under key: exactly one of url (http or
// https, without credentials, with a model) and command.
func (d *decoder) endpoint(key, rawURL, model string, command Command, example string) error {
	switch {
	case (rawURL == "") == (len(command) == 0):
		return d.fail(key, "expected exactly one of url and command")
	case rawURL != "":
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return d.fail(key+".url", "expected an http or https URL such as %s", example)
		}
		if u.User != nil {
			return d.fail(key+".url", "holds credentials; put the key in an environment variable and name it in key_env")
		}
		if strings.TrimSpace(model) == "" {
			return d.fail(key+".model", "required with url: the model name the server expects")
		}
	case strings.TrimSpace(command[0]) == "":
		return d.fail(key+".command", "expected a program as the first item")
	}
	return nil
}

// ModelName is what tells one provider's vectors from another's: the model, else the
// command line.
func (e *Embeddings) ModelName() string {
	if e.Model != "" {
		return e.Model
	}
	return strings.Join(e.Command, " ")
}
