package httpapi

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// NewAccessLog is the access log (Config.AccessLog) writing one JSON line per request to w at
// level and above, each line byte for byte what slog.NewJSONHandler(w, level) writes for it. The
// request lines skip slog's generic machinery: they are appended straight into a pooled buffer
// and written with one Write, with no Record, no Attr slice and no reflection per field (under
// load slog's JSON handler was 7% of a page GET's CPU, its float through encoding/json and the
// attributes beyond the Record's five inline ones the largest parts). Anything else logged through
// the returned logger goes through slog's own JSON handler. w is written by one call per line,
// as slog's handler does, so a writer shared with the application's log (cmd/quire's buffered
// writer, flushed on shutdown after the last request) never interleaves two lines.
func NewAccessLog(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(&accessHandler{w: w, level: level,
		Handler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})})
}

// accessHandler is slog's JSON handler, plus the direct path for request lines (writeLine).
type accessHandler struct {
	slog.Handler
	w     io.Writer
	level slog.Leveler
}

// accessLine is what one request's line says, in its order.
type accessLine struct {
	requestID, method, path, route string
	status, bytes                  int
	elapsed                        time.Duration
	tokenID                        string
}

// ms is the time taken in milliseconds, to the microsecond.
func (l *accessLine) ms() float64 { return float64(l.elapsed.Microseconds()) / 1000 }

// record is the line as a slog record, for an access logger that is not ours (a test's).
func (l *accessLine) record(now time.Time, level slog.Level) slog.Record {
	rec := slog.NewRecord(now, level, "request", 0)
	rec.AddAttrs(
		slog.String("request_id", l.requestID),
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.String("route", l.route),
		slog.Int("status", l.status),
		slog.Int("bytes", l.bytes),
		slog.Float64("ms", l.ms()),
		slog.String("token_id", l.tokenID),
	)
	return rec
}

var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeLine writes l as the JSON handler writes l.record(now, level); as slog.Logger does, a
// write error is dropped.
func (h *accessHandler) writeLine(now time.Time, level slog.Level, l *accessLine) {
	bp := lineBuffers.Get().(*[]byte)
	b := appendAccessLine((*bp)[:0], now, level, l)
	_, _ = h.w.Write(b)
	if cap(b) <= 4<<10 { // a line with a very long path is not kept for the next request
		*bp = b
		lineBuffers.Put(bp)
	}
}

// Enabled is the handler's own level, without asking slog's.
func (h *accessHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= h.level.Level()
}

func appendAccessLine(b []byte, now time.Time, level slog.Level, l *accessLine) []byte {
	b = append(b, `{"time":"`...)
	b = now.Round(0).AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = appendLogString(b, level.String())
	b = append(b, `,"msg":"request","request_id":`...)
	b = appendLogString(b, l.requestID)
	b = append(b, `,"method":`...)
	b = appendLogString(b, l.method)
	b = append(b, `,"path":`...)
	b = appendLogString(b, l.path)
	b = append(b, `,"route":`...)
	b = appendLogString(b, l.route)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(l.bytes), 10)
	b = append(b, `,"ms":`...)
	// encoding/json (which slog's handler calls for a float) writes a float64 in 'f' form from
	// 1e-6 up to 1e21; a whole number of microseconds over 1000 is 0 or at least 0.001.
	b = strconv.AppendFloat(b, l.ms(), 'f', -1, 64)
	b = append(b, `,"token_id":`...)
	b = appendLogString(b, l.tokenID)
	return append(b, "}\n"...)
}

// appendLogString appends s quoted as slog's JSON handler quotes it: encoding/json's rules
// without HTML escaping (<, > and & as they are), invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped.
func appendLogString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(append(b, s[start:i]...), '\\')
			switch c {
			case '"', '\\':
				b = append(b, c)
			case '\n':
				b = append(b, 'n')
			case '\r':
				b = append(b, 'r')
			case '\t':
				b = append(b, 't')
			default:
				b = append(b, 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), `\u202`...)
			b = append(b, hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
