package httpapi

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestAccessLine_AsSlogWritesIt checks the access log's direct path writes each line byte for
// byte as slog's JSON handler writes the same record: strings that need escaping (quotes,
// control bytes, invalid UTF-8, U+2028, HTML characters slog leaves as they are), every level,
// elapsed times from zero to an hour, a time zone other than UTC and a time with a monotonic
// reading.
func TestAccessLine_AsSlogWritesIt(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	times := []time.Time{
		time.Date(2026, 11, 28, 5, 47, 5, 123456789, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 0, paris),
		time.Now(), // monotonic reading, dropped by both
	}
	paths := []string{
		"/v2/pages/01a220b1-2923-7dbb-aef3-68fce4a205d0",
		`/v2/pages/"quoted"\back`,
		"/v2/a\x00b\x1fc\x7fd\te\nf\rg",
		"/v2/<script>&amp;",
		"/v2/\xff\xfe bad \xc3 utf8",
		"/v2/line\u2028para\u2029é漢字🙂",
		"",
	}
	elapsed := []time.Duration{0, time.Microsecond, 999 * time.Nanosecond, 123456 * time.Microsecond,
		3*time.Second + 7*time.Microsecond, time.Hour}
	levels := []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelError}
	var got, want bytes.Buffer
	fast := NewAccessLog(&got, slog.LevelDebug).Handler().(*accessHandler)
	ref := slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug})
	n := 0
	for i, p := range paths {
		for j, d := range elapsed {
			l := accessLine{requestID: "req_" + p[min(len(p), 3):], method: []string{"GET", "PATCH"}[j%2], path: p,
				route: "GET /v2/pages/{page_id}", status: []int{200, 404, 500}[(i+j)%3], bytes: i * j * 1000,
				elapsed: d, tokenID: strings.Repeat("t", j)}
			now, level := times[(i+j)%len(times)], levels[(i+j)%len(levels)]
			got.Reset()
			want.Reset()
			fast.writeLine(now, level, &l)
			if err := ref.Handle(context.Background(), l.record(now, level)); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("line %+v at %v:\n got %s\nwant %s", l, now, got.String(), want.String())
			}
			n++
		}
	}
	if n != len(paths)*len(elapsed) {
		t.Fatalf("compared %d lines", n)
	}
}

// TestAccessLog_Levels checks the access logger keeps to its level for the direct path and for
// lines logged through slog, and that a line written through slog is slog's own.
func TestAccessLog_Levels(t *testing.T) {
	var buf bytes.Buffer
	log := NewAccessLog(&buf, slog.LevelInfo)
	ctx := context.Background()
	if log.Enabled(ctx, slog.LevelDebug) || !log.Enabled(ctx, slog.LevelInfo) || !log.Enabled(ctx, slog.LevelError) {
		t.Fatal("NewAccessLog(Info) does not keep to its level")
	}
	log.Debug("hidden")
	log.With("k", "v").Info("shown", "n", 1)
	if got := buf.String(); strings.Contains(got, "hidden") || !strings.Contains(got, `"msg":"shown","k":"v","n":1}`) {
		t.Fatalf("logged %q", got)
	}
}

// BenchmarkAccessLine compares one request line written directly with the same line through
// slog's JSON handler (the access log before).
func BenchmarkAccessLine(b *testing.B) {
	l := accessLine{requestID: "req_01a220b129237dbbaef368fce4a205d0", method: "GET",
		path: "/v2/pages/01a220b1-2923-7dbb-aef3-68fce4a205d0", route: "GET /v2/pages/{page_id}", status: 200,
		bytes: 1005, elapsed: 187 * time.Microsecond, tokenID: "01a220b1-2923-7dbb-aef3-68fce4a205d1"}
	var buf bytes.Buffer
	b.Run("direct", func(b *testing.B) {
		h := NewAccessLog(&buf, slog.LevelInfo).Handler().(*accessHandler)
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			h.writeLine(time.Now(), slog.LevelInfo, &l)
		}
	})
	b.Run("slog", func(b *testing.B) {
		h := slog.NewJSONHandler(&buf, nil)
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			_ = h.Handle(context.Background(), l.record(time.Now(), slog.LevelInfo))
		}
	})
}
