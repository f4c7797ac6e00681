package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// replayedHeaders are the response headers stored with an idempotent response and replayed.
// X-Request-Id is the first answer's, so that a replayed error's request_id still equals it.
var replayedHeaders = []string{"Content-Type", "ETag", "Location", "X-Request-Id"}

// idempotent runs a write that carries an Idempotency-Key (contract §4): the first request with
// a key runs and its answer is stored; a repeat with the same method, path and body gets that
// answer again with Idempotent-Replayed: true; a different request under the key gets 409
// idempotency_conflict. The claim is marked inside the write's own transaction (store.InTx), so
// concurrent or retried repeats never apply a second effect.
func (s *Server) idempotent(w http.ResponseWriter, r *http.Request, p *quire.Principal, key string, body []byte, next http.Handler) {
	if len(key) > 255 {
		writeError(w, r, s.log, quire.OverLimit(quire.Beyond("Idempotency-Key", quire.ReasonTooLong, 255, int64(len(key))), "An Idempotency-Key has at most 255 characters."))
		return
	}
	// Header values may carry any byte; PostgreSQL's text refuses what is not UTF-8.
	if !utf8.ValidString(key) {
		writeError(w, r, s.log, quire.Invalid("Idempotency-Key", quire.ReasonInvalidValue, "An Idempotency-Key must be UTF-8 text."))
		return
	}
	h := sha256.New()
	h.Write([]byte(r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery + "\n"))
	h.Write(body)
	hash := hex.EncodeToString(h.Sum(nil))

	claim, rec, err := s.svc.BeginIdempotent(r.Context(), p, key, hash)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	if rec != nil {
		for k, v := range rec.Headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Content-Length", strconv.Itoa(len(rec.Body)))
		w.WriteHeader(rec.Status)
		_, _ = w.Write(rec.Body)
		return
	}

	r = r.WithContext(store.WithIdempotencyClaim(r.Context(), claim))
	cw := &captureWriter{ResponseWriter: w}
	next.ServeHTTP(cw, r)

	// Store the answer even if the client has gone: a retry must find it.
	ctx := context.WithoutCancel(r.Context())
	if cw.status >= 500 || cw.status == 0 {
		err = s.svc.ReleaseIdempotent(ctx, claim)
	} else {
		headers := map[string]string{}
		for _, k := range replayedHeaders {
			if v := w.Header().Get(k); v != "" {
				headers[k] = v
			}
		}
		err = s.svc.CompleteIdempotent(ctx, claim, cw.status, headers, cw.body.Bytes())
	}
	if err != nil {
		s.log.Error("store idempotent response", "request_id", requestID(r.Context()), "error", err)
	}
}

// captureWriter passes an answer through and keeps a copy for replay.
type captureWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *captureWriter) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *captureWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
