package httpapi

import (
	"errors"
	"io"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// reqBody is every write's request body: huma hands over its bytes untouched (rawBodies), and the
// handler reads them once with jsonbody, which reports each problem at its path, U+0000 in
// any string or key included. The document describes the body with R: the description its
// decoder reads (a described type, schema_bodies.go), or R's own Schema method (a block
// update, whose fields are its type's).
type reqBody[R any] struct{ raw []byte }

// described is a request body documented by its decoder's description.
type described interface{ body() jsonbody.Body }

// setRaw keeps the body's bytes; huma's buffer is reused after the request.
func (b *reqBody[R]) setRaw(data []byte) { b.raw = append([]byte(nil), data...) }

// Schema describes the body in the document.
func (reqBody[R]) Schema(r huma.Registry) *huma.Schema {
	t := reflect.TypeFor[R]()
	var zero R
	if d, ok := any(zero).(described); ok {
		return bodySchema(r, huma.DefaultSchemaNamer(t, ""), d.body())
	}
	return r.Schema(t, true, "")
}

// object reads the body, which must be a JSON object.
func (b *reqBody[R]) object() (map[string]any, error) { return jsonbody.Parse(b.raw) }

// bytes is the body as sent, for a decoder that reads it with jsonbody itself.
func (b *reqBody[R]) bytes() []byte { return b.raw }

type rawSetter interface{ setRaw([]byte) }

var rawSetterType = reflect.TypeFor[rawSetter]()

// rawBodies makes every format hand a reqBody[R] its bytes as they are, instead of decoding them
// (encoding/json would scan them first, and a CBOR body would be decoded into nothing: as
// bytes, it is refused as no JSON object).
func rawBodies(formats map[string]huma.Format) map[string]huma.Format {
	out := make(map[string]huma.Format, len(formats))
	for ct, f := range formats {
		if unmarshal := f.Unmarshal; unmarshal != nil {
			f.Unmarshal = func(data []byte, v any) error {
				if b, ok := v.(rawSetter); ok {
					b.setRaw(data)
					return nil
				}
				// An optional body is a *reqBody[R], and huma passes its address.
				if pv := reflect.ValueOf(v); pv.Kind() == reflect.Pointer && pv.Elem().Kind() == reflect.Pointer &&
					pv.Elem().Type().Implements(rawSetterType) {
					e := reflect.New(pv.Elem().Type().Elem())
					e.Interface().(rawSetter).setRaw(data)
					pv.Elem().Set(e)
					return nil
				}
				return unmarshal(data, v)
			}
		}
		out[ct] = f
	}
	return out
}

// readBody reads a write's whole body, at most 1 MiB, before huma does (guard): huma would
// give it 5 seconds and answer a body cut short with a 500. A body that ends before its
// Content-Length, arrives too slowly or is cut off is the client's failure: 400 (read by nobody
// when the client has gone), not a 500 logged as ours.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := readAll(http.MaxBytesReader(w, r.Body, maxBody), bodySize(r.ContentLength))
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &tooBig):
		return nil, &quire.Error{Code: quire.CodePayloadTooLarge, Message: "The request body is larger than 1 MiB."}
	}
	return nil, &quire.Error{Code: quire.CodeInvalidJSON, Message: "The request body could not be read in full."}
}

// bodySize is the buffer readBody starts with: the Content-Length and one byte more (the read
// that meets the end then needs no larger buffer), at most the limit's; io.ReadAll's 512 bytes
// when the length is not known. An append's 13–29 KB body was read into a buffer grown by
// doubling from 512 bytes, six allocations and copies where one does.
func bodySize(contentLength int64) int {
	if contentLength < 0 {
		return 512
	}
	return int(min(contentLength, maxBody+1)) + 1
}

// readAll is io.ReadAll starting from a buffer of size bytes.
func readAll(r io.Reader, size int) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // grown as append grows it
		}
	}
}
