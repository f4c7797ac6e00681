package client

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// DocumentMeta describes the server's OpenAPI document: ETag is the SHA-256 hex of its exact
// bytes, so a generator need fetch the document again only when ETag changes.
type DocumentMeta struct {
	ETag        string    `json:"etag"`
	GeneratedAt time.Time `json:"generatedAt"`
	PathCount   int       `json:"pathCount"`
	SchemaCount int       `json:"schemaCount"`
}

// DocumentMeta answers the meta of the served OpenAPI document (GET /v2/openapi/meta).
func (c *Client) DocumentMeta(ctx context.Context) (*DocumentMeta, error) {
	var out DocumentMeta
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/v2/openapi/meta"}, &out)
	return ret(&out, err)
}

// Document answers the served OpenAPI 3.1 document's exact bytes (GET /v2/openapi.json),
// e.g. to generate a client from, as README's "Generating a client" does.
func (c *Client) Document(ctx context.Context) ([]byte, error) {
	var out json.RawMessage
	if _, err := c.do(ctx, request{method: http.MethodGet, path: "/v2/openapi.json"}, &out); err != nil {
		return nil, err
	}
	return out, nil
}
