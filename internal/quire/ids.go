package quire

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// NewID returns a version 7 UUID (RFC 9562) in its canonical text form: the Unix time in
// milliseconds, then 74 random bits. Ids made one after another sort in the order they were made,
// so a batch of new rows lands at the end of each index keyed by id instead of on as many random
// index pages as it has rows: with random (version 4) ids a 100-block append to a 6,000-block
// page wrote 130 pages to the WAL against 69, and the gap grows with the database. The time an id
// carries is its object's creation, which created_time shows anyway; nothing relies on ids being
// hard to guess (every request's access is checked).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[6:]) // crypto/rand.Read never fails (Go 1.24+)
	ms := uint64(time.Now().UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = (b[6] & 0x0f) | 0x70
	b[8] = (b[8] & 0x3f) | 0x80
	var out [36]byte
	hex.Encode(out[0:8], b[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], b[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], b[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], b[8:10])
	out[23] = '-'
	hex.Encode(out[24:], b[10:])
	return string(out[:])
}

// ValidID reports whether s is a UUID in canonical form (any version, either case).
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// DashlessID returns the canonical form of a UUID written as 32 hex digits without dashes
// (the other form Notion's clients use, e.g. in page links), lowercased as Quire's ids are;
// ok is false for anything else. Ids enter Quire in canonical form only: the HTTP layer turns
// the dashless form into this one where a request carries an id (httpapi/ids.go, and jsonbody
// in a body), so that every check and lookup behind it sees one form.
func DashlessID(s string) (id string, ok bool) {
	if len(s) != 32 {
		return "", false
	}
	var out [36]byte
	j := 0
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			out[j] = '-'
			j++
		}
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		default:
			return "", false
		}
		out[j] = c
		j++
	}
	return string(out[:]), true
}

// CanonicalID accepts a UUID with or without dashes, in either case, and returns it
// lower-case with dashes, the form ids are stored and filtered in; ok is false for anything
// else. It is for ids inside values the request's id keys do not cover (a filter operand, a
// relation's configuration).
func CanonicalID(s string) (string, bool) {
	if id, ok := DashlessID(s); ok {
		return id, true
	}
	if !ValidID(s) {
		return "", false
	}
	return strings.ToLower(s), true
}

// TimeLayout is the specification's timestamp: ISO 8601, milliseconds, Z.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// FormatMillis formats Unix milliseconds as the specification's timestamp. Every answer formats
// two per object (a page of 100 blocks, 200), and time.Format through the layout was 5% of such
// an answer's CPU; times from 1970 to 9999 are written digit by digit instead, the same bytes.
func FormatMillis(ms int64) string {
	var b [len(TimeLayout)]byte
	return string(AppendMillis(b[:0], ms))
}

// AppendMillis appends FormatMillis(ms) to dst, for answers that write their own JSON (no
// string allocated per time).
func AppendMillis(dst []byte, ms int64) []byte {
	if ms < 0 || ms >= maxFastMillis {
		return time.UnixMilli(ms).UTC().AppendFormat(dst, TimeLayout)
	}
	const day = 24 * 60 * 60 * 1000
	y, mo, d := civilFromDays(ms / day)
	rem := ms % day
	var b [len(TimeLayout)]byte
	put := func(at int, v int64, digits int) {
		for i := at + digits - 1; i >= at; i-- {
			b[i] = byte('0' + v%10)
			v /= 10
		}
	}
	put(0, y, 4)
	b[4] = '-'
	put(5, mo, 2)
	b[7] = '-'
	put(8, d, 2)
	b[10] = 'T'
	put(11, rem/3_600_000, 2)
	b[13] = ':'
	put(14, rem/60_000%60, 2)
	b[16] = ':'
	put(17, rem/1000%60, 2)
	b[19] = '.'
	put(20, rem%1000, 3)
	b[23] = 'Z'
	return append(dst, b[:]...)
}

// maxFastMillis is 10000-01-01T00:00:00Z, past which a year has five digits.
const maxFastMillis = 253402300800000

// civilFromDays is the proleptic Gregorian date of a day counted from 1970-01-01 (0 or later):
// Howard Hinnant's days-to-civil algorithm, over 400-year eras starting on March 1st.
func civilFromDays(days int64) (year, month, day int64) {
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if mp >= 10 {
		month = mp - 9
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

// NowMillis is the current time in Unix milliseconds, the only form times are stored in.
func NowMillis() int64 { return time.Now().UnixMilli() }
