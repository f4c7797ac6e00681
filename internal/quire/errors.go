package quire

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Error codes that reach clients. The specification names some; the contract (§3) the rest.
const (
	CodeInvalidJSON         = "invalid_json"
	CodeValidation          = "validation_error"
	CodeUnauthorized        = "unauthorized"
	CodeForbidden           = "forbidden"
	CodeNotFound            = "not_found"
	CodeMethodNotAllowed    = "method_not_allowed"
	CodeConflict            = "conflict"
	CodeIdempotencyConflict = "idempotency_conflict"
	CodePayloadTooLarge     = "payload_too_large"
	CodeUnsupportedMedia    = "unsupported_media_type"
	CodeRateLimited         = "rate_limited"
	CodeUnavailable         = "service_unavailable"
	CodeInternal            = "internal_error"
)

// Reasons used in Detail.Reason (contract §3).
const (
	ReasonRequired     = "required"
	ReasonInvalidType  = "invalid_type"
	ReasonInvalidValue = "invalid_value"
	ReasonUnknownField = "unknown_field"
	ReasonTooLong      = "too_long"
	ReasonTooMany      = "too_many"
	ReasonOutOfRange   = "out_of_range"
	ReasonImmutable    = "immutable"
	ReasonArchived     = "archived"
	ReasonCycle        = "cycle"
	ReasonAmbiguous    = "ambiguous"
)

// Detail names one failing field: Path is dotted with indexes
// ("children[2].paragraph.rich_text[0].text.content").
type Detail struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Error is the only error whose code and message reach a client. Anything else is logged with
// the request id and answered 500 internal_error with a generic message.
type Error struct {
	Code    string
	Message string
	Details []Detail
	// Cause is what went wrong underneath, for the server's log only: it never reaches a client.
	Cause error
}

// Unwrap gives errors.Is and errors.As the cause.
func (e *Error) Unwrap() error { return e.Cause }

func (e *Error) Error() string {
	if len(e.Details) == 0 {
		return e.Code + ": " + e.Message
	}
	parts := make([]string, len(e.Details))
	for i, d := range e.Details {
		parts[i] = d.Path + " " + d.Reason
	}
	return e.Code + ": " + e.Message + " (" + strings.Join(parts, ", ") + ")"
}

// Status is the HTTP status that belongs to the error's code.
func (e *Error) Status() int {
	switch e.Code {
	case CodeInvalidJSON, CodeValidation:
		return 400
	case CodeUnauthorized:
		return 401
	case CodeForbidden:
		return 403
	case CodeNotFound:
		return 404
	case CodeMethodNotAllowed:
		return 405
	case CodeConflict, CodeIdempotencyConflict:
		return 409
	case CodePayloadTooLarge:
		return 413
	case CodeUnsupportedMedia:
		return 415
	case CodeRateLimited:
		return 429
	case CodeUnavailable:
		return 503
	}
	return 500
}

// AsError returns err as an *Error when it is one (or wraps one).
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// IsCode reports whether err is an *Error with the given code.
func IsCode(err error, code string) bool {
	e, ok := AsError(err)
	return ok && e.Code == code
}

// NotFound is the answer for anything missing or out of the caller's reach: it never says which.
func NotFound(what string) *Error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf("Could not find %s. Make sure it exists and is shared with the integration.", what)}
}

// Invalid is a validation_error with one detail.
func Invalid(path, reason, message string) *Error {
	return &Error{Code: CodeValidation, Message: message, Details: []Detail{{Path: path, Reason: reason}}}
}

// Forbidden is the answer for a token that lacks a scope or a workspace-scoped credential.
func Forbidden(message string) *Error {
	return &Error{Code: CodeForbidden, Message: message}
}

// Conflict is the answer for a failed If-Match version check.
func Conflict(message string) *Error {
	return &Error{Code: CodeConflict, Message: message}
}

// Problems collects field problems so that a request is answered with all of them at once.
type Problems struct {
	Details []Detail
	message string
}

// Add records one problem; the first message added becomes the error's message. A problem
// already recorded at the same path for the same reason is not listed twice (two keys of one
// body can break one rule: a block update naming another type both in "type" and as a key).
func (p *Problems) Add(path, reason, message string) {
	if p.message == "" {
		p.message = message
	}
	d := Detail{Path: path, Reason: reason}
	if !slices.Contains(p.Details, d) {
		p.Details = append(p.Details, d)
	}
}

// Err returns nil when nothing was added, else a validation_error holding every problem.
func (p *Problems) Err() error {
	if len(p.Details) == 0 {
		return nil
	}
	return &Error{Code: CodeValidation, Message: p.message, Details: p.Details}
}
