package httpapi

import (
	"bufio"
	"context"
	"log/slog"
	"net/http"
	"reflect"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// markdownObject is a page's content as Markdown.
type markdownObject struct {
	Object   string `json:"object" enum:"markdown"`
	PageID   string `json:"page_id" format:"uuid"`
	Markdown string `json:"markdown" doc:"GitHub-flavoured Markdown of the page's whole content tree."`
}

type markdownStream struct {
	Body func(huma.Context)
}

type putMarkdownInput struct {
	PageID string `path:"page_id" format:"uuid"`
	Body   reqBody[putMarkdownInputBody]
}

// putMarkdownInputBody documents the body (its name is the document's schema name).
type putMarkdownInputBody struct {
	Markdown string `json:"markdown" doc:"GitHub-flavoured Markdown that replaces the page's content."`
}

func (s *Server) registerMarkdown() {
	mdSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[markdownObject](), true, "")
	register(s, huma.Operation{
		OperationID: "retrieve-page-markdown", Method: http.MethodGet, Path: "/v2/pages/{page_id}/content/markdown",
		Summary: "Retrieve a page's content as Markdown", Tags: []string{"Pages"},
		Description: "The page's whole block tree as GitHub-flavoured Markdown, streamed as it is read.",
		Responses: map[string]*huma.Response{"200": {Description: "The Markdown of the page.",
			Content: map[string]*huma.MediaType{"application/json": {Schema: mdSchema}}}},
	}, route{scopes: []quire.Scope{quire.PagesRead, quire.BlocksRead}}, s.getMarkdown)
	register(s, op("replace-page-markdown", http.MethodPut, "/v2/pages/{page_id}/content/markdown", "Pages",
		"Replace a page's content with Markdown",
		"Parses the Markdown into blocks and replaces the page's content blocks with them, atomically "+
			"(the old blocks go to trash; child pages and databases stay)."), route{scopes: []quire.Scope{quire.PagesWrite, quire.BlocksWrite}}, s.putMarkdown)
}

// getMarkdown answers GET /v2/pages/{page_id}/content/markdown. The Markdown is streamed into
// the JSON string as the tree is read, so memory does not grow with the page.
func (s *Server) getMarkdown(ctx context.Context, in *pageIDInput) (*markdownStream, error) {
	p := principal(ctx)
	if _, err := s.svc.Page(ctx, p, in.PageID); err != nil {
		return nil, err
	}
	return &markdownStream{Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", "application/json")
		hctx.SetStatus(http.StatusOK)
		w := bufio.NewWriterSize(hctx.BodyWriter(), 32<<10)
		w.WriteString(`{"object":"markdown","page_id":"` + in.PageID + `","markdown":"`)
		err := s.svc.ExportMarkdown(ctx, p, in.PageID, &jsonStringWriter{w: w}, func(*quire.Node) error { return nil })
		if err != nil {
			// The status is sent: all that is left is to cut the answer short, so that the
			// client sees a broken body rather than a valid but truncated one.
			s.log.LogAttrs(ctx, slog.LevelError, "markdown export failed", slog.String("request_id", requestID(ctx)), slog.String("error", err.Error()))
			panic(http.ErrAbortHandler)
		}
		w.WriteString(`"}`)
		w.Flush()
	}}, nil
}

// putMarkdown answers PUT /v2/pages/{page_id}/content/markdown.
func (s *Server) putMarkdown(ctx context.Context, in *putMarkdownInput) (*pageOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	var p quire.Problems
	jsonbody.Unknown(&p, "", body, "markdown")
	md, _ := jsonbody.RequiredStr(&p, "", body, "markdown")
	if err := p.Err(); err != nil {
		return nil, err
	}
	n, err := s.svc.ReplaceMarkdown(ctx, principal(ctx), in.PageID, md)
	if err != nil {
		return nil, err
	}
	return s.pageOutput(n), nil
}

// jsonStringWriter writes text as the inside of a JSON string.
type jsonStringWriter struct {
	w    *bufio.Writer
	tail []byte // an incomplete UTF-8 sequence left by the previous write
}

const hexDigits = "0123456789abcdef"

func (j *jsonStringWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(j.tail) > 0 {
		p = append(j.tail, p...)
		j.tail = nil
	}
	for len(p) > 0 {
		c := p[0]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				j.w.WriteByte('\\')
				j.w.WriteByte(c)
			case c == '\n':
				j.w.WriteString(`\n`)
			case c == '\r':
				j.w.WriteString(`\r`)
			case c == '\t':
				j.w.WriteString(`\t`)
			case c < 0x20:
				j.w.WriteString(`\u00`)
				j.w.WriteByte(hexDigits[c>>4])
				j.w.WriteByte(hexDigits[c&0xf])
			default:
				j.w.WriteByte(c)
			}
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			j.tail = append([]byte(nil), p...)
			break
		}
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size == 1:
			j.w.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			j.w.WriteString(`\u202`)
			j.w.WriteByte(hexDigits[r&0xf])
		default:
			j.w.Write(p[:size])
		}
		p = p[size:]
	}
	return n, nil
}
