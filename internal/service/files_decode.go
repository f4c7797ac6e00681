package service

import (
	"math"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// MaxFileSize is the largest upload announced (5 GiB, S3's largest single object PUT).
const MaxFileSize int64 = 5 << 30

// MaxUnsizedFile is the largest upload announced without a size (100 MiB, the original
// service's limit on content_length): its bytes are counted as they arrive, and on S3 they
// are spooled to a temporary file first, so the limit bounds that file.
const MaxUnsizedFile int64 = 100 << 20

// SizeUnknown is the Size of an upload announced without one, until its bytes are in.
const SizeUnknown int64 = -1

// maxFileName is the longest file name in bytes, as most file systems allow.
const maxFileName = 255

// NewUpload is a validated POST /v2/files/upload-url body.
type NewUpload struct {
	ParentID    string // a page, "" when none
	Name        string
	ContentType string // normalized: lower-case type, parameters kept
	Size        int64  // SizeUnknown when neither size nor content_length was given
}

// DecodeNewUpload validates a POST /v2/files/upload-url body, reporting every problem with
// its path.
func DecodeNewUpload(body map[string]any) (NewUpload, error) {
	var p quire.Problems
	var out NewUpload
	NewUploadBody.Unknown(&p, body)
	if v, ok := body["parent"]; ok && v != nil {
		out.ParentID = decodeUploadParent(&p, v)
	}
	if name, ok := requiredString(&p, body, "filename"); ok {
		if d, msg := checkFileName(name); d.Reason != "" {
			p.AddDetail(d, msg)
		} else {
			out.Name = name
		}
	}
	if ct, ok := requiredString(&p, body, "content_type"); ok {
		if norm, ok := normalizeContentType(ct); ok {
			out.ContentType = norm
		} else {
			p.Add("content_type", quire.ReasonInvalidValue, "content_type is a media type such as image/png.")
		}
	}
	// The original service's generated client sends content_length, its docs page size; either
	// announces the exact size, and neither leaves it open up to MaxUnsizedFile.
	out.Size = SizeUnknown
	size, okSize := uploadSize(&p, body, "size")
	length, okLength := uploadSize(&p, body, "content_length")
	switch {
	case okSize && okLength && size != length:
		p.Add("content_length", quire.ReasonInvalidValue, "size and content_length are the same number of bytes; send one of them.")
	case okSize:
		out.Size = size
	case okLength:
		out.Size = length
	}
	return out, p.Err()
}

// uploadSize reads an announced size in bytes at key; ok is false when it is absent, null or
// invalid (then reported).
func uploadSize(p *quire.Problems, body map[string]any, key string) (int64, bool) {
	v := body[key]
	if v == nil {
		return 0, false
	}
	f, ok := v.(float64)
	switch {
	case !ok:
		p.Add(key, quire.ReasonInvalidType, key+" must be a number of bytes.")
	case f != math.Trunc(f):
		p.Add(key, quire.ReasonInvalidValue, key+" must be a whole number of bytes.")
	case f < 0 || f > float64(MaxFileSize):
		actual := int64(max(min(f, 1<<62), -1<<62)) // clamped: a float beyond int64 does not convert
		p.AddDetail(quire.Beyond(key, quire.ReasonOutOfRange, MaxFileSize, actual), key+" is 0 to 5 GiB.")
	default:
		return int64(f), true
	}
	return 0, false
}

// UploadParentShape is an upload's parent, the page it is for (decodeUploadParent).
var UploadParentShape = jsonbody.Body{Noun: "An upload's parent", Fields: []jsonbody.Field{
	{Name: "type", Type: "string", Enum: []string{quire.ParentPage}},
	{Name: "page_id", Type: "string", Format: "uuid", Required: true},
}}

// decodeUploadParent reads {"page_id":…} or {"type":"page_id","page_id":…}.
func decodeUploadParent(p *quire.Problems, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add("parent", quire.ReasonInvalidType, "parent must be an object.")
		return ""
	}
	UploadParentShape.UnknownAt(p, "parent", m)
	if fv, ok := m["type"]; ok && fv != quire.ParentPage {
		p.Add("parent.type", quire.ReasonInvalidValue, "An upload's parent is a page: type page_id.")
	}
	id, ok := m["page_id"].(string)
	switch {
	case m["page_id"] == nil:
		p.Add("parent.page_id", quire.ReasonRequired, "parent.page_id is required.")
	case !ok:
		p.Add("parent.page_id", quire.ReasonInvalidType, "parent.page_id must be a string.")
	case !quire.ValidID(id):
		p.Add("parent.page_id", quire.ReasonInvalidValue, "parent.page_id must be a page id.")
	default:
		return id
	}
	return ""
}

func requiredString(p *quire.Problems, body map[string]any, key string) (string, bool) {
	v, present := body[key]
	if !present || v == nil {
		p.Add(key, quire.ReasonRequired, key+" is required.")
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		p.Add(key, quire.ReasonInvalidType, key+" must be a string.")
	}
	return s, ok
}

// checkFileName refuses what is not a plain file name: empty, too long, not UTF-8, a path
// (separators, "." and ".."), control characters, or blanks at either end. The name is only
// shown (Content-Disposition, the file object); storage never uses it, so this is about
// clear answers and safe downloads, not about the store's paths.
func checkFileName(name string) (d quire.Detail, msg string) {
	switch {
	case name == "":
		return quire.Detail{Path: "filename", Reason: quire.ReasonInvalidValue}, "filename must not be empty."
	case len(name) > maxFileName:
		return quire.Beyond("filename", quire.ReasonTooLong, maxFileName, int64(len(name))), "filename is at most 255 bytes."
	case !utf8.ValidString(name):
		return quire.Detail{Path: "filename", Reason: quire.ReasonInvalidValue}, "filename must be UTF-8."
	case name == "." || name == ".." || strings.ContainsAny(name, `/\`):
		return quire.Detail{Path: "filename", Reason: quire.ReasonInvalidValue}, "filename is a name, not a path: no / or \\, not . or ..."
	case strings.TrimSpace(name) != name:
		return quire.Detail{Path: "filename", Reason: quire.ReasonInvalidValue}, "filename must not start or end with blanks."
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == unicode.ReplacementChar || unicode.Is(unicode.Bidi_Control, r) {
			return quire.Detail{Path: "filename", Reason: quire.ReasonInvalidValue}, "filename must not hold control characters."
		}
	}
	return quire.Detail{}, ""
}

// normalizeContentType parses a media type and writes it back canonically (lower-case type
// and subtype, parameters kept), so that the upload's Content-Type can be compared with it.
func normalizeContentType(ct string) (string, bool) {
	if len(ct) > maxContentType {
		return "", false
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || strings.Count(mt, "/") != 1 || strings.HasPrefix(mt, "/") || strings.HasSuffix(mt, "/") {
		return "", false
	}
	out := mime.FormatMediaType(mt, params)
	return out, out != ""
}

// sameMediaType reports whether a request's Content-Type is the announced one: the same type
// and subtype; parameters are not compared (clients add or drop a charset freely).
func sameMediaType(announced, got string) bool {
	a, _, err1 := mime.ParseMediaType(announced)
	g, _, err2 := mime.ParseMediaType(got)
	return err1 == nil && err2 == nil && a == g
}
