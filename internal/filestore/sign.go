package filestore

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"time"
)

// Signer signs the URLs that Quire serves without a token: the upload PUT and, for the local
// backend, the download GET. A signature binds the operation, the file id and the expiry, so
// none of them can be changed; the key is the store's secret, shared by every server on it.
type Signer struct {
	key []byte
}

// NewSigner returns a signer with key.
func NewSigner(key []byte) *Signer { return &Signer{key: append([]byte("quire-files-v1"), key...)} }

// Operations a signature is for.
const (
	OpUpload   = "put"
	OpDownload = "get"
)

// Sign returns the signature of op on file id until expires (Unix seconds).
func (s *Signer) Sign(op, id string, expires int64) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(op + "\n" + id + "\n" + strconv.FormatInt(expires, 10)))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// Verdicts of Verify.
const (
	Valid = iota
	Tampered
	Expired
)

// Verify checks signature and expiry (the expires query parameter, as sent) at now. A
// signature that does not match is Tampered even when its time has also passed.
func (s *Signer) Verify(op, id, expires, signature string, now time.Time) int {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || strconv.FormatInt(exp, 10) != expires {
		return Tampered
	}
	want := s.Sign(op, id, exp)
	if !hmac.Equal([]byte(want), []byte(signature)) {
		return Tampered
	}
	if now.Unix() > exp {
		return Expired
	}
	return Valid
}
