// Package vector computes and compares the dense strategy's vectors: it asks the
// embeddings provider bf.yaml declares (an OpenAI-compatible URL or a command speaking
// JSON Lines) for the vectors of chunk texts, stores them in the cache, and ranks a
// brain's items by the cosine of their best chunk to the query's vector with an exact
// scan.
package vector

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/bfgo/bf/libbf/config"
	"github.com/bfgo/bf/libbf/proc"
)

// maxResponse bounds a provider's reply (one batch of vectors).
const maxResponse = 64 << 20

// Provider turns texts into vectors.
type Provider struct {
	cfg  *config.Embeddings
	root string
}

// New returns the provider a brain declares; root is the brain's folder (a command's
// working directory).
func New(cfg *config.Embeddings, root string) *Provider { return &Provider{cfg: cfg, root: root} }

// Model tells this provider's vectors from another's.
func (p *Provider) Model() string { return p.cfg.ModelName() }

// Embed returns one vector per text, in order, batch by batch.
func (p *Provider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	var out [][]float32
	for start := 0; start < len(texts); start += p.cfg.Batch {
		batch := texts[start:min(start+p.cfg.Batch, len(texts))]
		var got [][]float32
		var err error
		if p.cfg.URL != "" {
			got, err = p.viaURL(ctx, batch)
		} else {
			got, err = p.viaCommand(ctx, batch)
		}
		if err != nil {
			return nil, err
		}
		if len(got) != len(batch) {
			return nil, fmt.Errorf("embeddings provider returned %d vectors for %d texts", len(got), len(batch))
		}
		out = append(out, got...)
	}
	if err := sameDimensions(p.Model(), out); err != nil {
		return nil, err
	}
	return out, nil
}

// viaURL posts a batch to an OpenAI-compatible /v1/embeddings endpoint.
func (p *Provider) viaURL(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(map[string]any{"model": p.cfg.Model, "input": texts})
	ctx, cancel := context.WithTimeout(ctx, time.Duration(p.cfg.Timeout)*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("embeddings.url: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if p.cfg.KeyEnv != "" {
		if key := os.Getenv(p.cfg.KeyEnv); key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, errors.New("embeddings provider unreachable: " + stripURL(err.Error(), p.cfg.URL))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return nil, errors.New("embeddings provider reply could not be read")
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("embeddings provider answered HTTP %d", resp.StatusCode)
	}
	var reply struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &reply); err != nil {
		return nil, errors.New("embeddings provider reply is not an embeddings response (data[].embedding)")
	}
	out := make([][]float32, len(texts))
	for i, d := range reply.Data {
		idx := d.Index
		if idx < 0 || idx >= len(texts) {
			idx = i
		}
		if idx >= len(texts) {
			return nil, errors.New("embeddings provider returned more vectors than texts")
		}
		out[idx] = d.Embedding
	}
	return out, nil
}

// stripURL keeps a transport error from repeating the endpoint.
func stripURL(msg, url string) string { return strings.ReplaceAll(msg, url, "embeddings.url") }

// viaCommand runs the declared command with one {"text": …} line per text on stdin and
// reads one {"embedding": […]} line per text from stdout.
func (p *Provider) viaCommand(ctx context.Context, texts []string) ([][]float32, error) {
	var in bytes.Buffer
	for _, t := range texts {
		b, _ := json.Marshal(map[string]string{"text": t})
		in.Write(append(b, '\n'))
	}
	res, err := proc.Run(ctx, proc.Spec{Name: "embeddings", Root: p.root, Command: p.cfg.Command, Stdin: in.Bytes(),
		Timeout: time.Duration(p.cfg.Timeout) * time.Second, MaxBytes: maxResponse})
	if err != nil {
		return nil, fmt.Errorf("embeddings command: %w", err)
	}
	var out [][]float32
	for n, line := range bytes.Split(bytes.TrimSpace(res.Stdout), []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v struct {
			Embedding []float32 `json:"embedding"`
		}
		if err := json.Unmarshal(line, &v); err != nil || len(v.Embedding) == 0 {
			return nil, fmt.Errorf("embeddings command: output line %d is not {\"embedding\": [numbers]}", n+1)
		}
		out = append(out, v.Embedding)
	}
	return out, nil
}

// Encode scales a vector to unit length and writes it as float32 little-endian values;
// a zero or non-finite vector encodes to nil.
func Encode(v []float32) []byte {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	norm := math.Sqrt(sum)
	if norm == 0 || math.IsNaN(norm) || math.IsInf(norm, 0) {
		return nil
	}
	out := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(float32(float64(x)/norm)))
	}
	return out
}

// unit scales a query vector to unit length.
func unit(v []float32) []float32 {
	enc := Encode(v)
	if enc == nil {
		return nil
	}
	out := make([]float32, len(v))
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(enc[4*i:]))
	}
	return out
}
