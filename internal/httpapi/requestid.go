package httpapi

import (
	"context"
	"encoding/hex"
	"math/rand/v2"

	"github.com/quire-dev/quire/internal/quire"
)

type ctxKey int

const (
	keyRequestID ctxKey = iota
)

// newRequestID returns "req_" and 24 random hex digits. It needs to be unique, not secret.
func newRequestID() string {
	var b [12]byte
	v1, v2 := rand.Uint64(), rand.Uint32()
	for i := range 8 {
		b[i] = byte(v1 >> (8 * i))
	}
	for i := range 4 {
		b[8+i] = byte(v2 >> (8 * i))
	}
	var out [4 + 24]byte
	copy(out[:], "req_")
	hex.Encode(out[4:], b[:])
	return string(out[:])
}

// reqInfo is what the request log learns about a request while it runs.
type reqInfo struct {
	id        string
	tokenID   string
	principal *quire.Principal // the authenticated caller, once the guard has one
}

func requestID(ctx context.Context) string {
	if ri, ok := ctx.Value(keyRequestID).(*reqInfo); ok {
		return ri.id
	}
	return ""
}

// setPrincipal records the caller for the access line and for principal: in the reqInfo the
// request's context already carries, where a context value of its own would cost the request a
// second context and a second copy of the http.Request.
func setPrincipal(ctx context.Context, p *quire.Principal) {
	if ri, ok := ctx.Value(keyRequestID).(*reqInfo); ok {
		ri.tokenID, ri.principal = p.Token.ID, p
	}
}

// principal is the authenticated caller; every guarded handler has one.
func principal(ctx context.Context) *quire.Principal {
	if ri, ok := ctx.Value(keyRequestID).(*reqInfo); ok {
		return ri.principal
	}
	return nil
}
