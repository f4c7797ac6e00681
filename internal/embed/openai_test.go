package embed

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeVector is the deterministic vector the test service returns for text.
func fakeVector(text string, dim int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	seed := h.Sum64()
	v := make([]float32, dim)
	for i := range v {
		seed = seed*6364136223846793005 + 1442695040888963407
		v[i] = float32(int32(seed>>33)) / (1 << 31)
	}
	return v
}

// fakeService is a loopback OpenAI-compatible /v1/embeddings. Each request takes the next status
// from script (200 once it runs out); answers list the data in reverse order to test the sort by
// index.
type fakeService struct {
	t      *testing.T
	dim    int
	mu     sync.Mutex
	script []int
	got    []openAIRequest
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
		f.t.Errorf("request %s %s, want POST /v1/embeddings", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		f.t.Errorf("Authorization %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		f.t.Errorf("Content-Type %q", got)
	}
	var req openAIRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("body: %v", err)
	}
	f.mu.Lock()
	f.got = append(f.got, req)
	status := http.StatusOK
	if len(f.script) > 0 {
		status, f.script = f.script[0], f.script[1:]
	}
	dim := f.dim
	f.mu.Unlock()
	if status != http.StatusOK {
		http.Error(w, `{"error":{"message":"try later"}}`, status)
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, item{"embedding", i, fakeVector(req.Input[i], dim)})
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func (f *fakeService) requests() []openAIRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

func newFake(t *testing.T, dim int, script ...int) (*fakeService, *openAI) {
	f := &fakeService{t: t, dim: dim, script: script}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	e := OpenAI(srv.URL+"/v1/", "test-model", "sk-test", srv.Client()).(*openAI)
	e.backoff = time.Millisecond
	return f, e
}

func TestOpenAIEmbedsInOrderInBatches(t *testing.T) {
	f, e := newFake(t, 8)
	if e.ID() != "openai:test-model" || e.Dim() != 0 {
		t.Fatalf("ID %q Dim %d before use", e.ID(), e.Dim())
	}
	texts := make([]string, 150)
	for i := range texts {
		texts[i] = strings.Repeat("x", i%7) + " text " + string(rune('a'+i%26))
	}
	texts[3], texts[70] = "", "  " // empty texts are not sent and come back as zero vectors
	got, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		want := fakeVector(text, 8)
		if i == 3 || i == 70 {
			want = make([]float32, 8)
		}
		if !slices.Equal(got[i], want) {
			t.Errorf("vector %d = %v, want %v", i, got[i], want)
		}
	}
	if e.Dim() != 8 {
		t.Errorf("Dim after use = %d, want 8", e.Dim())
	}
	var sizes []int
	for _, r := range f.requests() {
		sizes = append(sizes, len(r.Input))
		if r.Model != "test-model" || r.EncodingFormat != "float" {
			t.Errorf("request model %q encoding_format %q", r.Model, r.EncodingFormat)
		}
	}
	if !slices.Equal(sizes, []int{64, 64, 20}) {
		t.Errorf("batch sizes %v, want [64 64 20]", sizes)
	}
}

func TestOpenAIRetries(t *testing.T) {
	cases := []struct {
		name         string
		script       []int
		wantErr      bool
		wantRequests int
	}{
		{"429 then 503 then success", []int{429, 503}, false, 3},
		{"500 until the retries run out", []int{500, 500, 500, 500, 500}, true, 5},
		{"400 is not retried", []int{400}, true, 1},
		{"401 is not retried", []int{401}, true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, e := newFake(t, 4, c.script...)
			got, err := e.Embed(context.Background(), []string{"hello"})
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			if n := len(f.requests()); n != c.wantRequests {
				t.Errorf("%d requests, want %d", n, c.wantRequests)
			}
			if !c.wantErr && !slices.Equal(got[0], fakeVector("hello", 4)) {
				t.Errorf("vector %v", got[0])
			}
		})
	}
}

func TestOpenAIStopsWaitingWhenCancelled(t *testing.T) {
	_, e := newFake(t, 4, 503, 503, 503, 503, 503)
	e.backoff = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.Embed(ctx, []string{"hello"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want the context's deadline promptly", err, time.Since(start))
	}
}

func TestOpenAIRejectsADimensionChange(t *testing.T) {
	f, e := newFake(t, 8)
	if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.dim = 4
	f.mu.Unlock()
	if _, err := e.Embed(context.Background(), []string{"b"}); err == nil || !strings.Contains(err.Error(), "dimensions") {
		t.Fatalf("err = %v, want a dimension error", err)
	}
	if n := len(f.requests()); n != 2 {
		t.Errorf("%d requests, want 2 (a malformed answer is not retried)", n)
	}
}

func TestDecodeOpenAI(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		n, dim  int
		want    [][]float32
		wantErr string
	}{
		{"sorted by index", `{"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1,2]}]}`, 2, 0, [][]float32{{1, 2}, {3, 4}}, ""},
		{"known dimension", `{"data":[{"index":0,"embedding":[1,2]}]}`, 1, 2, [][]float32{{1, 2}}, ""},
		{"too few vectors", `{"data":[{"index":0,"embedding":[1,2]}]}`, 2, 0, nil, "1 vectors for 2 texts"},
		{"repeated index", `{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`, 2, 0, nil, "data[1] has a missing, out-of-range or repeated index"},
		{"index out of range", `{"data":[{"index":5,"embedding":[1]}]}`, 1, 0, nil, "data[0] has a missing"},
		{"missing index", `{"data":[{"embedding":[1]}]}`, 1, 0, nil, "data[0] has a missing"},
		{"ragged", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1]}]}`, 2, 0, nil, "data[1] has 1 dimensions, want 2"},
		{"other dimension", `{"data":[{"index":0,"embedding":[1,2]}]}`, 1, 3, nil, "data[0] has 2 dimensions, want 3"},
		{"base64 answer", `{"data":[{"index":0,"embedding":"AAAA"}]}`, 1, 0, nil, "malformed answer"},
		{"empty embedding", `{"data":[{"index":0,"embedding":[]}]}`, 1, 0, nil, "has no embedding"},
		{"not JSON", `<html>`, 1, 0, nil, "malformed answer"},
		{"float32 overflow", `{"data":[{"index":0,"embedding":[1e39]}]}`, 1, 0, nil, "malformed answer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeOpenAI([]byte(c.body), c.n, c.dim)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, c.want, slices.Equal) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// FuzzDecodeOpenAI: any answer either fails cleanly or yields exactly n vectors of one length.
func FuzzDecodeOpenAI(f *testing.F) {
	f.Add([]byte(`{"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1,2]}]}`), 2, 0)
	f.Add([]byte(`{"data":[{"index":0,"embedding":[1e39]}]}`), 1, 0)
	f.Add([]byte(`{"data":null}`), 0, 4)
	f.Fuzz(func(t *testing.T, body []byte, n, dim int) {
		if n < 0 || n > 64 || dim < 0 {
			return
		}
		got, err := decodeOpenAI(body, n, dim)
		if err != nil {
			return
		}
		if len(got) != n {
			t.Fatalf("%d vectors for %d texts", len(got), n)
		}
		for _, v := range got {
			if len(v) == 0 || len(v) != len(got[0]) || dim > 0 && len(v) != dim {
				t.Fatalf("vector lengths %d and %d (dim %d)", len(v), len(got[0]), dim)
			}
		}
	})
}

func TestOpenAIDefaults(t *testing.T) {
	e := OpenAI("http://localhost:11434/v1/", "nomic-embed-text", "", nil).(*openAI)
	if e.url != "http://localhost:11434/v1/embeddings" || e.client.Timeout != time.Minute || e.batch != 64 || e.retries != 4 {
		t.Fatalf("url %q timeout %v batch %d retries %d", e.url, e.client.Timeout, e.batch, e.retries)
	}
}

func TestOpenAISendsNoAuthorizationWithoutAKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := r.Header["Authorization"]; ok {
			t.Errorf("Authorization %q sent without a key", h)
		}
		w.Write([]byte(`{"data":[{"index":0,"embedding":[0.6,0.8]}]}`))
	}))
	defer srv.Close()
	got, err := OpenAI(srv.URL, "m", "", srv.Client()).Embed(context.Background(), []string{"hi"})
	if err != nil || !slices.Equal(got[0], []float32{0.6, 0.8}) {
		t.Fatalf("Embed = %v, %v", got, err)
	}
}
