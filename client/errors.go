package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Error is an answer of status 400 or above, decoded from the API's error body
// {object, status, code, message, request_id, details}. Use errors.As to reach it:
//
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.Code == client.CodeConflict { … }
type Error struct {
	Status    int      // HTTP status
	Code      string   // the body's code, e.g. CodeValidation; "" when the body was not the API's
	Message   string   // human-readable; not meant for matching
	RequestID string   // the server's request id (X-Request-Id), to quote in a support request
	Details   []Detail // one per failing field, every problem of the request at once
	// RetryAfter is the wait the server asked for (Retry-After), when it said one.
	RetryAfter time.Duration
}

// Detail names one failing field of a request.
type Detail struct {
	Path   string `json:"path"`   // dotted with indexes: children[1].paragraph.rich_text[0].text.content
	Reason string `json:"reason"` // required, too_long, invalid_value, unknown_field …
	// Limit and Actual accompany too_long, too_many and out_of_range where both are numbers.
	Limit  *float64 `json:"limit,omitempty"`
	Actual *float64 `json:"actual,omitempty"`
}

// Codes the server answers (the enum of code in the OpenAPI document lists them all).
const (
	CodeValidation          = "validation_error"
	CodeInvalidJSON         = "invalid_json"
	CodeUnauthorized        = "unauthorized"
	CodeForbidden           = "forbidden"
	CodeNotFound            = "not_found"
	CodeConflict            = "conflict"
	CodeIdempotencyConflict = "idempotency_conflict"
	CodeRateLimited         = "rate_limited"
	CodePayloadTooLarge     = "payload_too_large"
	CodeInternal            = "internal_error"
)

// Error formats the code, the message, the details and the request id on one line.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "quire: %d", e.Status)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	for i, d := range e.Details {
		sep := "; "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%s%s: %s", sep, d.Path, d.Reason)
	}
	if len(e.Details) > 0 {
		b.WriteString(")")
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " [%s]", e.RequestID)
	}
	return b.String()
}

// HasDetail reports whether the error names path among its details.
func (e *Error) HasDetail(path string) bool {
	for _, d := range e.Details {
		if d.Path == path {
			return true
		}
	}
	return false
}

// decodeError builds the Error of an answer. A body that is not the API's (a proxy's HTML
// page, say) still gives an Error, with the status and the first bytes of the body.
func decodeError(res *http.Response, body []byte) *Error {
	e := &Error{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id"), RetryAfter: retryAfter(res.Header)}
	var wire struct {
		Code      string   `json:"code"`
		Message   string   `json:"message"`
		RequestID string   `json:"request_id"`
		Details   []Detail `json:"details"`
	}
	if json.Unmarshal(body, &wire) != nil || wire.Code == "" {
		e.Message = http.StatusText(res.StatusCode)
		if s := strings.TrimSpace(string(body)); s != "" {
			e.Message += ": " + truncate(s, 200)
		}
		return e
	}
	e.Code, e.Message, e.Details = wire.Code, wire.Message, wire.Details
	if wire.RequestID != "" {
		e.RequestID = wire.RequestID
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
