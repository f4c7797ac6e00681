package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Defaults of the OpenAI-compatible client (copied into each value, so tests can shorten them).
const (
	openAIBatch       = 64 // texts per request; local servers often refuse much larger ones
	openAIRetries     = 4  // attempts after the first, on a 429, a 5xx or a transport error
	openAIBackoff     = 500 * time.Millisecond
	openAIMaxBackoff  = 30 * time.Second // also caps a server's Retry-After
	openAIMaxResponse = 64 << 20
)

// openAI embeds through any service that implements OpenAI's POST /embeddings (OpenAI, Ollama's
// /v1, llama.cpp, vLLM, LM Studio, text-embeddings-inference …).
type openAI struct {
	url, model, key string
	client          *http.Client
	batch, retries  int
	backoff         time.Duration
	dim             atomic.Int64 // learned from the first answer; every later answer must agree
}

// OpenAI returns an embedder for the OpenAI-compatible service at baseURL (for example
// "https://api.openai.com/v1" or "http://localhost:11434/v1"): it POSTs
// {"model","input":[…],"encoding_format":"float"} to baseURL+"/embeddings" with the key as a
// bearer token (none when key is empty), up to 64 texts per request, retrying 429 and 5xx answers
// and transport errors with exponential backoff (honouring Retry-After). Vectors are put back in
// input order by their index; a vector whose length differs from the first one the service
// returned is an error. client nil means a client that gives up on one request after 60 s, so a
// hung service cannot stall an indexer whose context has no deadline.
func OpenAI(baseURL, model, key string, client *http.Client) Embedder {
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	return &openAI{
		url: strings.TrimRight(baseURL, "/") + "/embeddings", model: model, key: key, client: client,
		batch: openAIBatch, retries: openAIRetries, backoff: openAIBackoff,
	}
}

func (o *openAI) ID() string { return "openai:" + o.model }
func (o *openAI) Dim() int   { return int(o.dim.Load()) }

// Embed sends the non-empty texts in batches; empty texts get zero vectors, as services reject them.
func (o *openAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var batch []string
	var at []int // index in texts of each batch entry
	send := func() error {
		vecs, err := o.request(ctx, batch)
		if err != nil {
			return err
		}
		for i, v := range vecs {
			out[at[i]] = v
		}
		batch, at = batch[:0], at[:0]
		return nil
	}
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			continue
		}
		batch, at = append(batch, t), append(at, i)
		if len(batch) == o.batch {
			if err := send(); err != nil {
				return nil, err
			}
		}
	}
	if len(batch) > 0 {
		if err := send(); err != nil {
			return nil, err
		}
	}
	for i := range out {
		if out[i] == nil {
			dim := o.Dim()
			if dim == 0 {
				return nil, errors.New("embed: only empty texts, and the service's dimension is not known yet")
			}
			out[i] = make([]float32, dim)
		}
	}
	return out, nil
}

type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

// request embeds one batch, retrying what is worth retrying.
func (o *openAI) request(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(openAIRequest{Model: o.model, Input: texts, EncodingFormat: "float"})
	if err != nil {
		return nil, err
	}
	wait := o.backoff
	for attempt := 0; ; attempt++ {
		vecs, retryAfter, err := o.once(ctx, body, len(texts))
		if err == nil {
			return vecs, nil
		}
		var permanent *permanentError
		if errors.As(err, &permanent) || attempt == o.retries || ctx.Err() != nil {
			return nil, err
		}
		if retryAfter > 0 {
			wait = min(retryAfter, openAIMaxBackoff)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, openAIMaxBackoff)
	}
}

// permanentError is an answer that retrying cannot fix (4xx other than 429, a malformed body).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// once makes one attempt; retryAfter is the server's Retry-After, when it sent one.
func (o *openAI) once(ctx context.Context, body []byte, n int) (vecs [][]float32, retryAfter time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &permanentError{err}
	}
	req.Header.Set("Content-Type", "application/json")
	if o.key != "" {
		req.Header.Set("Authorization", "Bearer "+o.key)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("embed: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, openAIMaxResponse))
	if err != nil {
		return nil, 0, fmt.Errorf("embed: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		err := fmt.Errorf("embed: %s answered %s: %s", o.url, resp.Status, snippet(raw))
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
				retryAfter = time.Duration(s) * time.Second
			}
			return nil, retryAfter, err
		}
		return nil, 0, &permanentError{err}
	}
	vecs, err = decodeOpenAI(raw, n, o.Dim())
	if err != nil {
		return nil, 0, &permanentError{err}
	}
	if o.dim.CompareAndSwap(0, int64(len(vecs[0]))) || o.Dim() == len(vecs[0]) {
		return vecs, 0, nil
	}
	return nil, 0, &permanentError{fmt.Errorf("embed: the service changed dimension from %d to %d", o.Dim(), len(vecs[0]))}
}

// openAIResponse is the part of the answer we read.
type openAIResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// decodeOpenAI checks and orders an answer for n inputs: exactly one vector per index 0…n-1, all of
// one non-zero length (dim, when dim > 0).
func decodeOpenAI(raw []byte, n, dim int) ([][]float32, error) {
	var r openAIResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("embed: malformed answer: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("embed: %d vectors for %d texts", len(r.Data), n)
	}
	out := make([][]float32, n)
	for i, d := range r.Data {
		if d.Index == nil || *d.Index < 0 || *d.Index >= n || out[*d.Index] != nil {
			return nil, fmt.Errorf("embed: data[%d] has a missing, out-of-range or repeated index", i)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embed: data[%d] has no embedding (is encoding_format float supported?)", i)
		}
		if dim == 0 {
			dim = len(d.Embedding)
		}
		if len(d.Embedding) != dim {
			return nil, fmt.Errorf("embed: data[%d] has %d dimensions, want %d", i, len(d.Embedding), dim)
		}
		out[*d.Index] = d.Embedding
	}
	return out, nil
}

func snippet(b []byte) string {
	const max = 200
	s := strings.TrimSpace(string(b))
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
