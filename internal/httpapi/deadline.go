package httpapi

import (
	"io"
	"net/http"
	"time"
)

// releaseBodyDeadline lifts the read deadline huma puts on the connection to bound the reading
// of a body (Operation.BodyReadTimeout, 5 s by default) as soon as the body is read. huma
// leaves it set, and net/http watches a connection whose body is read for the client going
// away with a background read: that read failed on the stale deadline and cancelled the
// request's context, so a write still working 5 s after its body arrived (waiting behind a
// lock under load, a large import) answered 500 and was rolled back. The next request on the
// connection gets its deadlines from the server again.
func releaseBodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &releasingBody{ReadCloser: r.Body, rc: http.NewResponseController(w)}
		}
		next.ServeHTTP(w, r)
	})
}

// releasingBody clears the connection's read deadline when its reader reaches the end.
type releasingBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
