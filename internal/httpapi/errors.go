package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
)

// Error is the wire form of every error: the specification's body.
type Error struct {
	Object    string         `json:"object" enum:"error" doc:"Always error."`
	Status    int            `json:"status" doc:"HTTP status code."`
	Code      string         `json:"code" doc:"Machine-readable code." example:"validation_error"`
	Message   string         `json:"message" doc:"Human-readable text."`
	RequestID string         `json:"request_id" doc:"Equal to the X-Request-Id response header."`
	Details   []quire.Detail `json:"details" nullable:"false" doc:"Failing fields: dotted path with indexes, and a reason."`
}

// TransformSchema lists every code a client may see as the document's enum of code, from
// the one list in quire, so a new code cannot be left out of the document.
func (Error) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if c := s.Properties["code"]; c != nil {
		c.Enum = make([]any, len(quire.Codes))
		for i, code := range quire.Codes {
			c.Enum[i] = code
		}
	}
	return s
}

func (e *Error) Error() string             { return e.Code + ": " + e.Message }
func (e *Error) GetStatus() int            { return e.Status }
func (e *Error) ContentType(string) string { return "application/json" }

// toError turns any error into the wire error. A *quire.Error passes through; anything else is
// logged with the request id and becomes a generic internal_error, so nothing internal leaks.
func toError(ctx context.Context, logger *slog.Logger, err error) *Error {
	var we *Error
	if errors.As(err, &we) {
		return we
	}
	rid := requestID(ctx)
	if qe, ok := quire.AsError(err); ok {
		details := qe.Details
		if details == nil {
			details = []quire.Detail{}
		}
		if qe.Cause != nil {
			logger.LogAttrs(ctx, slog.LevelError, qe.Code, slog.String("request_id", rid), slog.String("error", qe.Cause.Error()))
		}
		return &Error{Object: "error", Status: qe.Status(), Code: qe.Code, Message: qe.Message, RequestID: rid, Details: details}
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		// The client went away; nobody reads this answer. (The drivers do not always wrap the
		// context's error: SQLite's is "interrupted".)
		logger.LogAttrs(ctx, slog.LevelInfo, "request canceled", slog.String("request_id", rid))
	} else {
		logger.LogAttrs(ctx, slog.LevelError, "internal error", slog.String("request_id", rid), slog.String("error", err.Error()))
	}
	return &Error{Object: "error", Status: 500, Code: quire.CodeInternal,
		Message: "Something went wrong on our side. Quote the request id if you report it.", RequestID: rid, Details: []quire.Detail{}}
}

// writeError answers err outside huma (middleware, unknown routes).
func writeError(w http.ResponseWriter, r *http.Request, logger *slog.Logger, err error) {
	e := toError(r.Context(), logger, err)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(e)
}

// installHumaErrors makes huma produce our error body for everything it rejects itself (body
// parsing, validation, size) and for every error a handler returns.
func installHumaErrors(logger *slog.Logger) {
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return fromHuma(context.Background(), logger, nil, status, msg, errs)
	}
	huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		return fromHuma(context.Background(), logger, hctx, status, msg, errs)
	}
}

// fromHuma turns what huma rejects into our error body; hctx, when there is one, names the
// operation (for the limits of its parameters) and the request's Content-Type.
func fromHuma(ctx context.Context, logger *slog.Logger, hctx huma.Context, status int, msg string, errs []error) *Error {
	var op *huma.Operation
	contentType := ""
	if hctx != nil {
		ctx, op, contentType = hctx.Context(), hctx.Operation(), hctx.Header("Content-Type")
	}
	for _, err := range errs {
		if _, ok := quire.AsError(err); ok {
			return toError(ctx, logger, err)
		}
	}
	rid := requestID(ctx)
	e := &Error{Object: "error", Status: status, RequestID: rid, Details: []quire.Detail{}}
	switch {
	case status == http.StatusRequestEntityTooLarge:
		e.Code, e.Message = quire.CodePayloadTooLarge, "The request body is larger than 1 MiB."
		return e
	case status == http.StatusUnsupportedMediaType:
		e.Status, e.Code, e.Message = 400, quire.CodeInvalidJSON, notJSON(contentType)
		return e
	case status >= 500:
		var inner error = errors.New(msg)
		if len(errs) > 0 && errs[0] != nil {
			inner = errs[0]
		}
		return toError(ctx, logger, inner)
	case status != http.StatusBadRequest && status != http.StatusUnprocessableEntity:
		e.Code, e.Message = codeForStatus(status), msg
		return e
	}
	e.Status, e.Code = 400, quire.CodeValidation
	for _, err := range errs {
		var d *huma.ErrorDetail
		if !errors.As(err, &d) {
			continue
		}
		if d.Location == "body" && strings.HasPrefix(d.Message, huma.ErrUnknownContentType.Error()) {
			e.Code, e.Message, e.Details = quire.CodeInvalidJSON, notJSON(contentType), []quire.Detail{}
			return e
		}
		// At the body itself, anything but a missing property means the body is no JSON object.
		if d.Location == "body" && !strings.HasPrefix(d.Message, "expected required property") {
			e.Code, e.Message, e.Details = quire.CodeInvalidJSON, "The request body is not a JSON object.", []quire.Detail{}
			return e
		}
		path, reason := detailFromHuma(d.Location, d.Message)
		if e.Message == "" {
			e.Message = cmp.Or(limitMessage(op, d.Location, reason), path+": "+d.Message)
		}
		e.Details = append(e.Details, limitDetail(op, d.Location, quire.Detail{Path: path, Reason: reason}, d.Value))
	}
	if len(e.Details) == 0 && msg == "request body is required" {
		// No body at all is no JSON object either.
		e.Code, e.Message = quire.CodeInvalidJSON, "The request body is empty; send a JSON object."
		return e
	}
	if e.Message == "" {
		e.Message = "The request is not valid."
	}
	return e
}

// notJSON names a wrong Content-Type.
func notJSON(contentType string) string {
	if contentType == "" {
		return "The request body must be JSON (Content-Type: application/json)."
	}
	return "The request body must be JSON: Content-Type is " + strconv.Quote(contentType) + ", not application/json."
}

// paramSchema is the schema of the query or path parameter at a huma location
// ("query.page_size"); nil for any other location.
func paramSchema(op *huma.Operation, location string) (string, *huma.Schema) {
	in, name, _ := strings.Cut(location, ".")
	if op == nil || (in != "query" && in != "path") {
		return name, nil
	}
	for _, p := range op.Parameters {
		if p.In == in && p.Name == name && p.Schema != nil {
			return name, p.Schema
		}
	}
	return name, nil
}

// limitMessage words a parameter's broken limit as the body decoders word the same limit
// ("page_size must be between 1 and 100."), from the parameter's schema; "" when it is no
// limit of a parameter.
func limitMessage(op *huma.Operation, location, reason string) string {
	name, s := paramSchema(op, location)
	switch {
	case s == nil:
	case reason == quire.ReasonOutOfRange && s.Minimum != nil && s.Maximum != nil:
		return name + " must be between " + strconv.FormatFloat(*s.Minimum, 'f', -1, 64) + " and " + strconv.FormatFloat(*s.Maximum, 'f', -1, 64) + "."
	case reason == quire.ReasonTooLong && s.MaxLength != nil:
		return name + " has at most " + strconv.Itoa(*s.MaxLength) + " characters."
	}
	return ""
}

// limitDetail adds to a parameter's detail the limit it broke and the value sent, as the body
// decoders' details carry them (quire.Beyond): page_size=0 is out_of_range with limit 1.
func limitDetail(op *huma.Operation, location string, d quire.Detail, value any) quire.Detail {
	_, s := paramSchema(op, location)
	if s == nil {
		return d
	}
	switch d.Reason {
	case quire.ReasonOutOfRange:
		n, ok := value.(float64)
		if i, isInt := value.(int); isInt {
			n, ok = float64(i), true
		} else if i, isInt := value.(int64); isInt {
			n, ok = float64(i), true
		}
		if !ok || n != float64(int64(n)) {
			return d
		}
		if s.Minimum != nil && n < *s.Minimum {
			return quire.Beyond(d.Path, d.Reason, int64(*s.Minimum), int64(n))
		}
		if s.Maximum != nil && n > *s.Maximum {
			return quire.Beyond(d.Path, d.Reason, int64(*s.Maximum), int64(n))
		}
	case quire.ReasonTooLong:
		if v, ok := value.(string); ok && s.MaxLength != nil {
			return quire.Beyond(d.Path, d.Reason, int64(*s.MaxLength), int64(utf8.RuneCountInString(v)))
		}
	}
	return d
}

func codeForStatus(status int) string {
	switch status {
	case 401:
		return quire.CodeUnauthorized
	case 403:
		return quire.CodeForbidden
	case 404:
		return quire.CodeNotFound
	case 405:
		return quire.CodeMethodNotAllowed
	case 409:
		return quire.CodeConflict
	case 429:
		return quire.CodeRateLimited
	}
	return quire.CodeValidation
}

// reasons maps huma's validation messages (by prefix) to the contract's reasons. The longest
// prefixes come first.
var reasons = []struct{ prefix, reason string }{
	{"expected required property", quire.ReasonRequired},
	{"unexpected property", quire.ReasonUnknownField},
	{"unknown query parameter", quire.ReasonUnknownField},
	{"expected array length <=", quire.ReasonTooMany},
	{"expected length <=", quire.ReasonTooLong},
	{"expected object with at most", quire.ReasonTooMany},
	{"expected number", quire.ReasonOutOfRange}, // "expected number >= 1" …; bare "expected number" below
	{"expected boolean", quire.ReasonInvalidType},
	{"expected integer", quire.ReasonInvalidType},
	{"expected string", quire.ReasonInvalidValue}, // formats and patterns; bare "expected string" below
	{"expected array", quire.ReasonInvalidType},
	{"expected object", quire.ReasonInvalidType},
	{"invalid", quire.ReasonInvalidType}, // parameter parsing: "invalid integer", "invalid boolean"
}

// detailFromHuma turns a huma location ("body.children[2].type", "query.page_size") and message
// into our dotted path and reason.
func detailFromHuma(location, msg string) (string, string) {
	path := location
	for _, p := range []string{"body.", "query.", "path.", "header."} {
		if strings.HasPrefix(path, p) {
			path = path[len(p):]
			break
		}
	}
	if path == "body" {
		path = ""
	}
	if rest, ok := strings.CutPrefix(msg, "expected required property "); ok {
		name, _, _ := strings.Cut(rest, " to be present")
		if path == "" {
			return name, quire.ReasonRequired
		}
		return path + "." + name, quire.ReasonRequired
	}
	switch msg {
	case "expected number", "expected string":
		return path, quire.ReasonInvalidType
	}
	for _, r := range reasons {
		if strings.HasPrefix(msg, r.prefix) {
			return path, r.reason
		}
	}
	return path, quire.ReasonInvalidValue
}
