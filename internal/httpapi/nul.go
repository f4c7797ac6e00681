package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/quire"
)

// nulEscape is how U+0000 appears in a JSON text (a raw NUL is not valid JSON in a string).
var nulEscape = []byte(`\u0000`)

// refuseBody reads a write's JSON body and refuses, for every route at once, what none takes:
// a body that is not a JSON object answers invalid_json (a route decoding into a map took null
// as {}), and U+0000 in any string or key answers 400 at its path (PostgreSQL's text and jsonb
// cannot store it, so without this check the same request would succeed on SQLite and fail with
// a 500 on PostgreSQL). It leaves the body readable again for the handler and reports whether
// the request may go on.
func (s *Server) refuseBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	body, err := readBody(w, r)
	if err != nil {
		writeError(w, r, s.log, err)
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if rest := bytes.TrimLeft(body, " \t\r\n"); len(rest) > 0 && rest[0] != '{' {
		writeError(w, r, s.log, &quire.Error{Code: quire.CodeInvalidJSON, Message: "The request body is not a JSON object."})
		return false
	}
	if !bytes.Contains(body, nulEscape) {
		return true
	}
	var v map[string]any
	if json.Unmarshal(body, &v) != nil || v == nil {
		return true // not a JSON object: the route answers invalid_json
	}
	var p quire.Problems
	var paths []string
	nulPaths(v, "", &paths)
	slices.Sort(paths)
	for _, path := range paths {
		p.Add(path, quire.ReasonInvalidValue, "Text must not contain the NUL character (U+0000).")
	}
	if err := p.Err(); err != nil {
		writeError(w, r, s.log, err)
		return false
	}
	return true
}

// readBody reads a write's whole body, at most 1 MiB. A body that ends before its
// Content-Length, arrives too slowly or is cut off is the client's failure: 400 (read by nobody
// when the client has gone), not a 500 logged as ours.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &tooBig):
		return nil, &quire.Error{Code: quire.CodePayloadTooLarge, Message: "The request body is larger than 1 MiB."}
	}
	return nil, &quire.Error{Code: quire.CodeInvalidJSON, Message: "The request body could not be read in full."}
}

// nulPaths appends the path of every string or object key under v that holds U+0000.
func nulPaths(v any, path string, out *[]string) {
	switch v := v.(type) {
	case string:
		if strings.ContainsRune(v, 0) {
			*out = append(*out, path)
		}
	case []any:
		for i, e := range v {
			nulPaths(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	case map[string]any:
		for k, e := range v {
			kp := k
			if path != "" {
				kp = path + "." + k
			}
			if strings.ContainsRune(k, 0) {
				*out = append(*out, kp)
				continue
			}
			nulPaths(e, kp, out)
		}
	}
}
