package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to one Quire server with one token. It is safe for concurrent use.
type Client struct {
	base     string // scheme://host[:port], without a trailing slash and without /v2
	token    string
	http     *http.Client
	tries    int
	minDelay time.Duration
	maxDelay time.Duration
	ua       string

	Users     *UsersService
	Workspace *WorkspaceService
	Pages     *PagesService
	Blocks    *BlocksService
	Databases *DatabasesService
	Views     *ViewsService
	MindMaps  *MindMapsService
	Search    *SearchService
	Files     *FilesService
	Events    *EventsService
	Webhooks  *WebhooksService
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithMaxTries sets how many times one call is sent at most (default 4; 1 turns retries off).
func WithMaxTries(n int) Option {
	return func(c *Client) {
		if n > 0 {
			c.tries = n
		}
	}
}

// WithBackoff sets the first retry's wait and the longest wait between two tries
// (default 500 ms and 30 s). A Retry-After longer than longest makes the call give up.
func WithBackoff(first, longest time.Duration) Option {
	return func(c *Client) { c.minDelay, c.maxDelay = first, longest }
}

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.ua = ua } }

// New returns a client of the server at baseURL (e.g. "http://127.0.0.1:8080"; a trailing
// "/v2" is accepted) that authenticates with token.
func New(baseURL, token string, opts ...Option) *Client {
	base := strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v2")
	c := &Client{base: base, token: token, http: http.DefaultClient, tries: 4,
		minDelay: 500 * time.Millisecond, maxDelay: 30 * time.Second, ua: "quire-go-client"}
	for _, o := range opts {
		o(c)
	}
	c.Users = &UsersService{c}
	c.Workspace = &WorkspaceService{c}
	c.Pages = &PagesService{c}
	c.Blocks = &BlocksService{c}
	c.Databases = &DatabasesService{c}
	c.Views = &ViewsService{c}
	c.MindMaps = &MindMapsService{c}
	c.Search = &SearchService{c}
	c.Files = &FilesService{c}
	c.Events = &EventsService{c}
	c.Webhooks = &WebhooksService{c}
	return c
}

// CallOption changes one call.
type CallOption func(*call)

type call struct {
	ifMatch string
	key     string
}

// IfMatch makes a write apply only while the resource still has etag (as read from a
// Page, Block, Database, View or MindMap's ETag); otherwise the call fails with Code CodeConflict
// and nothing changes.
func IfMatch(etag string) CallOption { return func(c *call) { c.ifMatch = etag } }

// IdempotencyKey sets the write's Idempotency-Key instead of a generated one, so that a
// repeat of the same call, even from another process, takes effect once.
func IdempotencyKey(key string) CallOption { return func(c *call) { c.key = key } }

// request is one logical call, sent up to c.tries times.
type request struct {
	method string
	path   string // starting with /v2
	query  url.Values
	body   any // JSON-encoded once; nil sends no body
	opts   []CallOption
}

// do sends r and decodes a 2xx answer into out (when not nil). It returns the answer's
// headers, or an *Error for an answer of 400 or above.
func (c *Client) do(ctx context.Context, r request, out any) (http.Header, error) {
	var cl call
	for _, o := range r.opts {
		o(&cl)
	}
	var payload []byte
	if r.body != nil {
		var err error
		if payload, err = json.Marshal(r.body); err != nil {
			return nil, fmt.Errorf("quire: encoding the %s %s body: %w", r.method, r.path, err)
		}
	}
	// One key per logical call, reused by every retry: the server replays the first answer
	// rather than applying the write twice.
	if cl.key == "" && isWrite(r.method) {
		cl.key = newKey()
	}
	u := c.base + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, r.method, u, bodyReader(payload))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", c.ua)
		if payload != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if cl.key != "" {
			req.Header.Set("Idempotency-Key", cl.key)
		}
		if cl.ifMatch != "" {
			req.Header.Set("If-Match", cl.ifMatch)
		}
		h, err := c.send(req, out)
		wait, retry := c.shouldRetry(err, attempt)
		if !retry {
			return h, err
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// send makes one try.
func (c *Client) send(req *http.Request, out any) (http.Header, error) {
	res, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		return res.Header, decodeError(res, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			return res.Header, fmt.Errorf("quire: decoding the answer of %s %s: %w", req.Method, req.URL.Path, err)
		}
	}
	return res.Header, nil
}

// shouldRetry decides whether try number attempt, which ended in err, is sent again, and
// after how long. 429 and 503 are retried, as are transport errors: every write carries an
// Idempotency-Key and every other method is idempotent, so a repeat never applies twice.
func (c *Client) shouldRetry(err error, attempt int) (time.Duration, bool) {
	if err == nil || attempt >= c.tries {
		return 0, false
	}
	var apiErr *Error
	if errors.As(err, &apiErr) {
		if apiErr.Status != http.StatusTooManyRequests && apiErr.Status != http.StatusServiceUnavailable {
			return 0, false
		}
		if apiErr.RetryAfter > 0 {
			return apiErr.RetryAfter, apiErr.RetryAfter <= c.maxDelay
		}
		return c.backoff(attempt), true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 0, false
	}
	var urlErr *url.Error
	if !errors.As(err, &urlErr) { // a decoding problem, not the network's
		return 0, false
	}
	return c.backoff(attempt), true
}

func isWrite(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == http.MethodPut
}

func bodyReader(payload []byte) io.Reader {
	if payload == nil {
		return nil
	}
	return bytes.NewReader(payload)
}

// newKey returns 128 random bits in hex.
func newKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// pathID escapes an id for a path segment; ids are UUIDs, but a caller's typo must not
// reach another route.
func pathID(id string) string { return url.PathEscape(id) }

// etagged is a versioned resource: Page, Block, Database, View, MindMap.
type etagged[T any] interface {
	*T
	setETag(string)
}

// versioned sends r and decodes a T with the answer's ETag.
func versioned[T any, P etagged[T]](ctx context.Context, c *Client, r request) (*T, error) {
	var out T
	h, err := c.do(ctx, r, &out)
	if err != nil {
		return nil, err
	}
	P(&out).setETag(h.Get("ETag"))
	return &out, nil
}
