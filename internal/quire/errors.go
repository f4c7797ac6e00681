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

	// The original service's codes for a well-formed request Quire does not take: an unknown
	// filter operator or a property type that cannot be filtered, a property that cannot be
	// sorted, a block type that is unknown or read-only. Answered 400 like validation_error.
	CodeUnsupportedFilter    = "unsupported_filter"
	CodeUnsupportedSort      = "unsupported_sort"
	CodeUnsupportedBlockType = "unsupported_block_type"
)

// Codes lists every error code a client may see, for the document's enum.
var Codes = []string{
	CodeInvalidJSON, CodeValidation, CodeUnsupportedFilter, CodeUnsupportedSort, CodeUnsupportedBlockType,
	CodeUnauthorized, CodeForbidden, CodeNotFound, CodeMethodNotAllowed, CodeConflict, CodeIdempotencyConflict,
	CodePayloadTooLarge, CodeUnsupportedMedia, CodeRateLimited, CodeUnavailable, CodeInternal,
}

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
// ("children[2].paragraph.rich_text[0].text.content"). A too_long, too_many or out_of_range
// detail also carries the limit it broke and the value it found, where both are numbers.
type Detail struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Limit  *int64 `json:"limit,omitempty" doc:"The limit broken (too_long, too_many, out_of_range)."`
	Actual *int64 `json:"actual,omitempty" doc:"The length, count or value found."`
}

// Beyond is a detail of a number over (or under) its limit: too_long, too_many or out_of_range.
func Beyond(path, reason string, limit, actual int64) Detail {
	return Detail{Path: path, Reason: reason, Limit: &limit, Actual: &actual}
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
	case CodeInvalidJSON, CodeValidation, CodeUnsupportedFilter, CodeUnsupportedSort, CodeUnsupportedBlockType:
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

// OverLimit is Invalid for a number over (or under) its limit, the detail made by Beyond.
func OverLimit(d Detail, message string) *Error {
	return &Error{Code: CodeValidation, Message: message, Details: []Detail{d}}
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
	code    string // the first problem's code when it is not validation_error
}

// Add records one problem; the first message added becomes the error's message. A problem
// already recorded at the same path for the same reason is not listed twice (two keys of one
// body can break one rule: a block update naming another type both in "type" and as a key).
func (p *Problems) Add(path, reason, message string) {
	p.AddDetail(Detail{Path: path, Reason: reason}, message)
}

// AddDetail is Add for a detail that carries more than its path and reason (Beyond).
func (p *Problems) AddDetail(d Detail, message string) {
	if p.message == "" {
		p.message = message
		if p.code == "" {
			p.code = CodeValidation
		}
	}
	if !slices.ContainsFunc(p.Details, func(o Detail) bool { return o.Path == d.Path && o.Reason == d.Reason }) {
		p.Details = append(p.Details, d)
	}
}

// Unsupported is Add for what is well formed but not taken (CodeUnsupportedFilter and its
// siblings). The error's code is the first problem's: when that one is unsupported, so is the
// answer, with every other problem still listed.
func (p *Problems) Unsupported(code, path, reason, message string) {
	if p.message == "" {
		p.code = code
	}
	p.Add(path, reason, message)
}

// Merge adds every problem of e, an error of another decoder, whole (limit and actual kept);
// e's code counts as that of its first problem, as Unsupported's would.
func (p *Problems) Merge(e *Error) {
	for _, d := range e.Details {
		if p.message == "" && e.Code != CodeValidation {
			p.code = e.Code
		}
		p.AddDetail(d, e.Message)
	}
}

// Err returns nil when nothing was added, else an error holding every problem: a
// validation_error, or the code Unsupported gave the first problem.
func (p *Problems) Err() error {
	if len(p.Details) == 0 {
		return nil
	}
	code := p.code
	if code == "" {
		code = CodeValidation
	}
	return &Error{Code: code, Message: p.message, Details: p.Details}
}
