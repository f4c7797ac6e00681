package httpapi

import (
	"net/http"
	"strings"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// canonicalIDs turns every id in a request's path and query in the dashless form (32 hex
// digits, as in Notion's page links) into the canonical one, before anything routes or reads
// it: path segments, and query parameters named id, …_id, after or before. Everything behind
// this (access checks, decoders, SQL) then knows one form. A JSON body's ids are made canonical
// by jsonbody while it reads the body, at keys named so (jsonbody.IDKey); free text is never
// touched, even when it is 32 hex digits (an MD5 sum in a paragraph).
func canonicalIDs(r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/v2/") {
		return
	}
	r.URL.Path = canonicalSegments(r.URL.Path)
	if r.URL.RawPath != "" {
		r.URL.RawPath = canonicalSegments(r.URL.RawPath)
	}
	if r.URL.RawQuery != "" && strings.Contains(r.URL.RawQuery, "=") {
		q, changed := r.URL.Query(), false
		for k, vs := range q {
			if jsonbody.IDKey(k) {
				for i, v := range vs {
					if id, ok := quire.DashlessID(v); ok {
						vs[i], changed = id, true
					}
				}
			}
		}
		if changed {
			r.URL.RawQuery = q.Encode()
		}
	}
}

func canonicalSegments(p string) string {
	if !strings.Contains(p, "/") {
		return p
	}
	segs := strings.Split(p, "/")
	changed := false
	for i, s := range segs {
		if id, ok := quire.DashlessID(s); ok {
			segs[i], changed = id, true
		}
	}
	if !changed {
		return p
	}
	return strings.Join(segs, "/")
}
