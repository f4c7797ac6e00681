// Package order makes fractional position keys: strings that sort bytewise (SQLite's BINARY
// collation, PostgreSQL's "C"), so that an item can always be placed between two others
// without renumbering anything, and every ordered read is a walk of an index.
//
// A key is an integer part, whose first character encodes its length (as in
// rocicorp/fractional-indexing), followed by an optional fraction. Appending at the end
// increments the integer part, so a page of n blocks appended in order has keys of
// O(log n) length; inserting between neighbours extends the fraction.
package order

import (
	"errors"
	"strings"
)

const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// First is the key of the first item of an empty list.
const First = "a0"

// ErrInvalid is returned for a key this package did not make, or bounds out of order.
var ErrInvalid = errors.New("order: invalid key or bounds")

func digit(c byte) int { return strings.IndexByte(digits, c) }

// intLen is the length of the integer part that starts with head.
func intLen(head byte) (int, bool) {
	switch {
	case head >= 'a' && head <= 'z':
		return int(head-'a') + 2, true
	case head >= 'A' && head <= 'Z':
		return int('Z'-head) + 2, true
	}
	return 0, false
}

func split(key string) (intPart, frac string, err error) {
	if key == "" {
		return "", "", ErrInvalid
	}
	n, ok := intLen(key[0])
	if !ok || len(key) < n {
		return "", "", ErrInvalid
	}
	intPart, frac = key[:n], key[n:]
	if strings.HasSuffix(frac, "0") {
		return "", "", ErrInvalid
	}
	for i := 1; i < len(key); i++ {
		if digit(key[i]) < 0 {
			return "", "", ErrInvalid
		}
	}
	return intPart, frac, nil
}

// Valid reports whether key is a well-formed key.
func Valid(key string) bool {
	_, _, err := split(key)
	return err == nil
}

// midpoint returns a fraction strictly between fractions a and b ("" for b means no upper bound).
func midpoint(a, b string) string {
	if b != "" {
		n := 0
		for n < len(b) {
			ca := byte('0')
			if n < len(a) {
				ca = a[n]
			}
			if ca != b[n] {
				break
			}
			n++
		}
		if n > 0 {
			rest := ""
			if n < len(a) {
				rest = a[n:]
			}
			return b[:n] + midpoint(rest, b[n:])
		}
	}
	da := 0
	if a != "" {
		da = digit(a[0])
	}
	db := len(digits)
	if b != "" {
		db = digit(b[0])
	}
	if db-da > 1 {
		return string(digits[(da+db+1)/2])
	}
	if len(b) > 1 {
		return b[:1]
	}
	rest := ""
	if len(a) > 1 {
		rest = a[1:]
	}
	return string(digits[da]) + midpoint(rest, "")
}

// increment returns the next integer part, or "" when the largest has been reached.
func increment(x string) string {
	head, ds := x[0], []byte(x[1:])
	for i := len(ds) - 1; i >= 0; i-- {
		d := digit(ds[i]) + 1
		if d < len(digits) {
			ds[i] = digits[d]
			return string(head) + string(ds)
		}
		ds[i] = '0'
	}
	switch head {
	case 'Z':
		return "a0"
	case 'z':
		return ""
	}
	head++
	if head > 'a' {
		ds = append(ds, '0')
	} else {
		ds = ds[:len(ds)-1]
	}
	return string(head) + string(ds)
}

// decrement returns the previous integer part, or "" when the smallest has been reached.
func decrement(x string) string {
	head, ds := x[0], []byte(x[1:])
	for i := len(ds) - 1; i >= 0; i-- {
		d := digit(ds[i]) - 1
		if d >= 0 {
			ds[i] = digits[d]
			return string(head) + string(ds)
		}
		ds[i] = digits[len(digits)-1]
	}
	switch head {
	case 'a':
		return "Z" + string(digits[len(digits)-1])
	case 'A':
		return ""
	}
	head--
	if head < 'Z' {
		ds = append(ds, digits[len(digits)-1])
	} else {
		ds = ds[:len(ds)-1]
	}
	return string(head) + string(ds)
}

// Between returns a key strictly between a and b. a == "" means before b (the start), b == ""
// means after a (the end); both empty gives First.
func Between(a, b string) (string, error) {
	if a != "" && b != "" && a >= b {
		return "", ErrInvalid
	}
	switch {
	case a == "" && b == "":
		return First, nil
	case a == "":
		ib, fb, err := split(b)
		if err != nil {
			return "", err
		}
		if ib == "A"+strings.Repeat("0", len(ib)-1) {
			return ib + midpoint("", fb), nil
		}
		if ib < b {
			return ib, nil
		}
		if d := decrement(ib); d != "" {
			return d, nil
		}
		return "", ErrInvalid
	case b == "":
		ia, fa, err := split(a)
		if err != nil {
			return "", err
		}
		if i := increment(ia); i != "" {
			return i, nil
		}
		return ia + midpoint(fa, ""), nil
	}
	ia, fa, err := split(a)
	if err != nil {
		return "", err
	}
	ib, fb, err := split(b)
	if err != nil {
		return "", err
	}
	if ia == ib {
		return ia + midpoint(fa, fb), nil
	}
	if i := increment(ia); i != "" && i < b {
		return i, nil
	}
	return ia + midpoint(fa, ""), nil
}

// NBetween returns n ascending keys strictly between a and b (either may be "", as in Between),
// for inserting n items at once.
func NBetween(a, b string, n int) ([]string, error) {
	out := make([]string, 0, n)
	switch {
	case n <= 0:
		return out, nil
	case b == "":
		prev := a
		for range n {
			k, err := Between(prev, "")
			if err != nil {
				return nil, err
			}
			out = append(out, k)
			prev = k
		}
		return out, nil
	case a == "":
		next := b
		for range n {
			k, err := Between("", next)
			if err != nil {
				return nil, err
			}
			out = append(out, k)
			next = k
		}
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
		return out, nil
	}
	// Bisect, so keys grow by O(log n) characters rather than O(n).
	mid, err := Between(a, b)
	if err != nil {
		return nil, err
	}
	left, err := NBetween(a, mid, (n-1)/2)
	if err != nil {
		return nil, err
	}
	right, err := NBetween(mid, b, n-1-(n-1)/2)
	if err != nil {
		return nil, err
	}
	out = append(append(append(out, left...), mid), right...)
	return out, nil
}
