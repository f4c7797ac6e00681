package httpapi

import (
	"io"
	"net/http"
	"time"
)

// liftBodyDeadline lifts the connection's read deadline once the request body has been read to
// its end. huma gives every body 5 seconds by setting a read deadline on the connection, and
// leaves it there; but once a body is done, net/http reads the connection in the background to
// notice a client that goes away, and that read failing at the deadline cancels the request's
// context. A write still running 5 seconds after huma began reading its body (waiting for a row
// lock held by another request or server, a 10,000-node mind map on a busy machine) was
// cancelled and answered 500. The body keeps its 5 seconds; the request then runs as long as
// its client waits.
func liftBodyDeadline(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = &bodyEnd{ReadCloser: r.Body, w: w}
		next.ServeHTTP(w, r)
	})
}

// bodyEnd is a request body that lifts the read deadline when it reaches its end.
type bodyEnd struct {
	io.ReadCloser
	w    http.ResponseWriter
	done bool
}

func (b *bodyEnd) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		// huma has set its deadline before reading; the server's own (ReadTimeout) was for
		// reading the request, which is over.
		_ = http.NewResponseController(b.w).SetReadDeadline(time.Time{})
	}
	return n, err
}
