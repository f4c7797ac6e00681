package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

// document is the published OpenAPI document, serialized once, and its metadata.
type document struct {
	json     []byte
	etag     string // SHA-256 hex of json
	meta     docMeta
	metaJSON []byte
	metaTag  string
}

type docMeta struct {
	ETag        string `json:"etag" doc:"SHA-256 of the exact bytes of /v2/openapi.json, in hex."`
	GeneratedAt string `json:"generatedAt" format:"date-time" doc:"When the server's build of the document was made."`
	PathCount   int    `json:"pathCount" doc:"Paths in the document."`
	SchemaCount int    `json:"schemaCount" doc:"Component schemas in the document."`
}

type docInput struct {
	IfNoneMatch string `header:"If-None-Match" doc:"An ETag from an earlier answer; 304 when it still matches."`
}

type rawOutput struct {
	ETag        string `header:"ETag"`
	ContentType string `header:"Content-Type"`
	Status      int
	Body        []byte
}

// registerDocument adds the two public document routes and then freezes the document: it must
// come after every other registration.
func (s *Server) registerDocument() {
	notModified := &huma.Response{Description: "The document has not changed since the ETag in If-None-Match."}
	register(s, huma.Operation{
		OperationID: "retrieve-openapi-document", Method: http.MethodGet, Path: "/v2/openapi.json",
		Summary: "Retrieve the OpenAPI document", Tags: []string{"Document"},
		Description: "This document. It describes every non-destructive endpoint; soft deletes are left out. No token needed.",
		Responses: map[string]*huma.Response{
			"200": {Description: "The OpenAPI 3.1 document.", Headers: etagHeader(),
				Content: map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object", AdditionalProperties: true}}}},
			"304": notModified,
		},
	}, route{public: true}, func(_ context.Context, in *docInput) (*rawOutput, error) {
		return conditional(in.IfNoneMatch, s.doc.etag, s.doc.json), nil
	})
	metaSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[docMeta](), true, "")
	register(s, huma.Operation{
		OperationID: "retrieve-openapi-meta", Method: http.MethodGet, Path: "/v2/openapi/meta",
		Summary: "Retrieve the document's metadata", Tags: []string{"Document"},
		Description: "Fetch this first and download /v2/openapi.json only when etag changed. No token needed.",
		Responses: map[string]*huma.Response{
			"200": {Description: "Metadata of the OpenAPI document.", Headers: etagHeader(),
				Content: map[string]*huma.MediaType{"application/json": {Schema: metaSchema}}},
			"304": notModified,
		},
	}, route{public: true}, func(_ context.Context, in *docInput) (*rawOutput, error) {
		return conditional(in.IfNoneMatch, s.doc.metaTag, s.doc.metaJSON), nil
	})
	s.doc = s.freezeDocument()
}

func etagHeader() map[string]*huma.Param {
	return map[string]*huma.Param{"ETag": {Description: "Strong validator of the body.", Schema: &huma.Schema{Type: "string"}}}
}

// conditional answers body with its ETag, or 304 when If-None-Match names that ETag.
func conditional(ifNoneMatch, tag string, body []byte) *rawOutput {
	quoted := `"` + tag + `"`
	for _, v := range strings.Split(ifNoneMatch, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == quoted || v == "*" {
			return &rawOutput{ETag: quoted, Status: http.StatusNotModified}
		}
	}
	return &rawOutput{ETag: quoted, ContentType: "application/json", Status: http.StatusOK, Body: body}
}

// freezeDocument finishes the document (no 422 answers: ours are 400) and serializes it once,
// so the meta etag is the hash of exactly the bytes served.
func (s *Server) freezeDocument() *document {
	oapi := s.api.OpenAPI()
	for _, item := range oapi.Paths {
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			delete(op.Responses, "422")
			if r, ok := op.Responses["default"]; ok && len(op.Responses) > 1 {
				r.Description = "Error."
			}
		}
	}
	describeDefaults(oapi.Components.Schemas)
	body := pruneSchemas(oapi)
	sum := sha256.Sum256(body)
	d := &document{json: body, etag: hex.EncodeToString(sum[:])}
	d.meta = docMeta{ETag: d.etag, GeneratedAt: s.cfg.DocTime.UTC().Format(quire.TimeLayout),
		PathCount: len(oapi.Paths), SchemaCount: len(oapi.Components.Schemas.Map())}
	d.metaJSON, _ = json.Marshal(d.meta)
	msum := sha256.Sum256(d.metaJSON)
	d.metaTag = hex.EncodeToString(msum[:])
	return d
}

// pruneSchemas drops component schemas nothing refers to (helpers that built other schemas
// register them as a side effect) and returns the serialized document.
func pruneSchemas(oapi *huma.OpenAPI) []byte {
	schemas := oapi.Components.Schemas.Map()
	for {
		body, err := json.Marshal(oapi)
		if err != nil {
			panic("httpapi: the OpenAPI document does not serialize: " + err.Error())
		}
		pruned := false
		for name := range schemas {
			if !bytes.Contains(body, []byte(`"#/components/schemas/`+name+`"`)) {
				delete(schemas, name)
				pruned = true
			}
		}
		if !pruned {
			return body
		}
	}
}
