package quire

import (
	"math"
	"testing"
	"time"
)

// FuzzFormatMillis: the digit-by-digit formatting is byte for byte time.Format's with
// TimeLayout, at the edges of days, months, leap years, centuries and the fast range, and
// outside it.
func FuzzFormatMillis(f *testing.F) {
	for _, s := range []string{"1970-01-01T00:00:00Z", "1999-12-31T23:59:59.999Z", "2000-02-29T12:00:00Z",
		"2000-03-01T00:00:00Z", "2024-02-29T23:59:59.999Z", "2026-11-27T21:30:12.345Z", "2100-02-28T00:00:00.001Z",
		"2100-03-01T00:00:00Z", "2400-02-29T00:00:00Z", "9999-12-31T23:59:59.999Z"} {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(t.UnixMilli())
		f.Add(t.UnixMilli() - 1)
		f.Add(t.UnixMilli() + 1)
	}
	for _, ms := range []int64{0, -1, maxFastMillis - 1, maxFastMillis, math.MinInt64, math.MaxInt64} {
		f.Add(ms)
	}
	f.Fuzz(func(t *testing.T, ms int64) {
		if got, want := FormatMillis(ms), time.UnixMilli(ms).UTC().Format(TimeLayout); got != want {
			t.Fatalf("FormatMillis(%d) = %s, time.Format %s", ms, got, want)
		}
	})
}

// TestFormatMillisEveryDay: every day from 1970 to 10000 at one millisecond before midnight.
func TestFormatMillisEveryDay(t *testing.T) {
	for ms := int64(24*60*60*1000 - 1); ms < maxFastMillis; ms += 24 * 60 * 60 * 1000 {
		if got, want := FormatMillis(ms), time.UnixMilli(ms).UTC().Format(TimeLayout); got != want {
			t.Fatalf("FormatMillis(%d) = %s, time.Format %s", ms, got, want)
		}
	}
}
