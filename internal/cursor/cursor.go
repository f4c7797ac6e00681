// Package cursor makes the opaque, tamper-evident pagination cursors of every list: the keyset
// position of the last item returned, bound to the list it came from and signed with the
// store's secret, so every server sharing the store accepts it and nobody can forge one.
package cursor

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
)

const macLen = 16

// ErrInvalid is returned for a cursor that is malformed, altered, or from another list.
var ErrInvalid = errors.New("invalid cursor")

// Codec signs and checks cursors with one secret.
type Codec struct{ key []byte }

// New returns a codec keyed with secret.
func New(secret []byte) *Codec { return &Codec{key: secret} }

type envelope struct {
	List string          `json:"l"`
	Pos  json.RawMessage `json:"p"`
}

// Encode returns a cursor for position pos (any JSON-encodable value) of list; list names the
// endpoint and whatever else must match when it is read back (e.g. "users:<workspace id>").
func (c *Codec) Encode(list string, pos any) (string, error) {
	p, err := json.Marshal(pos)
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(envelope{List: list, Pos: p})
	if err != nil {
		return "", err
	}
	buf := append(payload, c.mac(payload)...)
	return base64.RawURLEncoding.EncodeToString(buf), nil
}

// Decode checks cursor s against list and decodes its position into pos.
func (c *Codec) Decode(s, list string, pos any) error {
	buf, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(buf) <= macLen {
		return ErrInvalid
	}
	payload, mac := buf[:len(buf)-macLen], buf[len(buf)-macLen:]
	if !hmac.Equal(mac, c.mac(payload)) {
		return ErrInvalid
	}
	var env envelope
	if err := json.Unmarshal(payload, &env); err != nil || env.List != list {
		return ErrInvalid
	}
	if err := json.Unmarshal(env.Pos, pos); err != nil {
		return ErrInvalid
	}
	return nil
}

func (c *Codec) mac(payload []byte) []byte {
	h := hmac.New(sha256.New, c.key)
	h.Write([]byte("cursor\x00"))
	h.Write(payload)
	return h.Sum(nil)[:macLen]
}
