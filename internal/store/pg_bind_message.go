package store

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// bindExecute is a statement's Bind (unnamed portal, every result column in text), Execute
// and Sync, encoded by Encode straight into the frontend's send buffer. formats are the
// parameters' format codes, as pgx would choose them for args and the statement's parameter
// types.
type bindExecute struct {
	stmt    string
	args    []any
	formats []int16
	size    int // bytes of the three messages
}

// errUnbound says that a value's type does not fit its parameter as newBindExecute encodes it
// (a bool for a text parameter): execBound then leaves the statement to database/sql, which
// converts or refuses it as before.
var errUnbound = errors.New("store: a value execBound does not encode for its parameter")

// newBindExecute checks args against the parameter types of sd and sizes the messages. A
// value whose type does not fit its parameter is errUnbound.
func newBindExecute(sd *pgconn.StatementDescription, args []any) (*bindExecute, error) {
	if len(args) != len(sd.ParamOIDs) {
		return nil, fmt.Errorf("store: %d arguments for %d parameters", len(args), len(sd.ParamOIDs))
	}
	if len(args) > math.MaxUint16 {
		return nil, errors.New("store: too many parameters")
	}
	m := &bindExecute{stmt: sd.Name, args: args, formats: make([]int16, len(args))}
	// Bind: type, length, portal "", statement name, format codes, values, result formats.
	size := 1 + 4 + 1 + len(sd.Name) + 1 + 2 + 2*len(args) + 2 + 2
	for i, a := range args {
		oid := sd.ParamOIDs[i]
		size += 4
		switch a := a.(type) {
		case nil:
		case string:
			size += len(a)
		case bool:
			if oid != pgtype.BoolOID {
				return nil, fmt.Errorf("%w: a bool for parameter $%d of type %d", errUnbound, i+1, oid)
			}
			m.formats[i], size = pgtype.BinaryFormatCode, size+1
		case int64:
			if oid != pgtype.Int8OID {
				return nil, fmt.Errorf("%w: an int64 for parameter $%d of type %d", errUnbound, i+1, oid)
			}
			m.formats[i], size = pgtype.BinaryFormatCode, size+8
		case []string:
			if oid != pgtype.TextArrayOID {
				return nil, fmt.Errorf("%w: a []string for parameter $%d of type %d", errUnbound, i+1, oid)
			}
			m.formats[i], size = pgtype.BinaryFormatCode, size+textArraySize(a)
		}
	}
	m.size = size + 1 + 4 + 1 + 4 + 1 + 4 // Execute (portal "", no row limit) and Sync
	if m.size > math.MaxInt32 {
		return nil, errors.New("store: statement too large")
	}
	return m, nil
}

// textArraySize is the size of a's binary form (array_recv's): its header, then each element's
// length and bytes. nil is NULL, no bytes; an empty array is one dimension of length 0, as pgx
// sends it.
func textArraySize(a []string) int {
	if a == nil {
		return 0
	}
	n := 20
	for _, s := range a {
		n += 4 + len(s)
	}
	return n
}

// Frontend marks bindExecute as a message to the server.
func (m *bindExecute) Frontend() {}

// Decode is never called: the server sends no such message.
func (m *bindExecute) Decode([]byte) error { return errors.New("store: bindExecute is not decoded") }

// Encode appends the messages to dst, grown once to hold them.
func (m *bindExecute) Encode(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, m.size)
	start := len(dst)
	dst = append(dst, 'B')
	dst = appendInt32(dst, int32(m.size-(1+4+1+4+1+4)-1))
	dst = append(dst, 0) // the unnamed portal
	dst = append(dst, m.stmt...)
	dst = append(dst, 0)
	dst = appendInt16(dst, int16(len(m.formats)))
	for _, f := range m.formats {
		dst = appendInt16(dst, f)
	}
	dst = appendInt16(dst, int16(len(m.args)))
	for _, a := range m.args {
		dst = appendBound(dst, a)
	}
	dst = appendInt16(dst, 0)                      // every result column in text
	dst = append(dst, 'E', 0, 0, 0, 9, 0)          // Execute: the unnamed portal,
	dst = append(dst, 0, 0, 0, 0, 'S', 0, 0, 0, 4) // every row; Sync
	if len(dst)-start != m.size {
		return nil, fmt.Errorf("store: Bind of %d bytes, %d expected", len(dst)-start, m.size)
	}
	return dst, nil
}

// appendBound appends a, a parameter's length and value, in the format newBindExecute chose.
func appendBound(dst []byte, a any) []byte {
	switch a := a.(type) {
	case nil:
		return appendInt32(dst, -1)
	case string:
		return append(appendInt32(dst, int32(len(a))), a...)
	case bool:
		if a {
			return append(dst, 0, 0, 0, 1, 1)
		}
		return append(dst, 0, 0, 0, 1, 0)
	case int64:
		return appendInt64(appendInt32(dst, 8), a)
	case []string:
		if a == nil {
			return appendInt32(dst, -1)
		}
		dst = appendInt32(dst, int32(textArraySize(a)))
		// One dimension, no nulls, text elements, len(a) of them from index 1.
		dst = appendInt32(appendInt32(appendInt32(dst, 1), 0), int32(pgtype.TextOID))
		dst = appendInt32(appendInt32(dst, int32(len(a))), 1)
		for _, s := range a {
			dst = append(appendInt32(dst, int32(len(s))), s...)
		}
		return dst
	}
	panic(fmt.Sprintf("store: appendBound of %T", a)) // boundable let it through
}

func appendInt16(dst []byte, v int16) []byte { return append(dst, byte(v>>8), byte(v)) }

func appendInt32(dst []byte, v int32) []byte {
	return append(dst, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendInt64(dst []byte, v int64) []byte {
	return appendInt32(appendInt32(dst, int32(v>>32)), int32(v))
}

var _ pgproto3.FrontendMessage = (*bindExecute)(nil)
