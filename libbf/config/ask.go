package config

// Ask declares the model bf ask sends retrieved blocks to: a command given the chat
// request as JSON on stdin (like an assistant's harness), or an OpenAI-compatible chat
// completions URL.
type Ask struct {
	// Command is the harness argv, run without a shell.
	Command Command `json:"command,omitempty"`
	// URL is the full /v1/chat/completions endpoint, http or https.
	URL string `json:"url,omitempty"`
	// Model is the model name sent with every request.
	Model string `json:"model,omitempty"`
	// KeyEnv names the environment variable holding the URL's API key (never the key).
	KeyEnv string `json:"key_env,omitempty"`
	// Timeout is the limit in seconds of one answer (1–600, default 120).
	Timeout int `json:"timeout,omitempty"`
}

// defaultAskTimeout is an answer's time limit without ask.timeout.
const defaultAskTimeout = 120

// ask checks the model of bf ask and fills its defaults.
func (d *decoder) ask(top map[string]any) error {
	a := d.c.Ask
	if a == nil {
		return nil
	}
	r := child(top, "ask")
	if err := d.endpoint("ask", a.URL, a.Model, a.Command, "http://127.0.0.1:8080/v1/chat/completions"); err != nil {
		return err
	}
	return integer(d, r, "ask", "timeout", &a.Timeout)
}
