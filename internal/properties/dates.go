package properties

import (
	"strings"
	"time"
)

// dateLayouts are the ISO 8601 forms a date value takes; a form without a zone is UTC (as in
// Notion). They are internal/dbquery's, so that every stored date is one its filters read
// (dates_test.go checks the two agree).
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
}

// parseDate reads an ISO 8601 date ("2024-05-10") or date-time and returns its start in Unix
// ms, as dbquery.ParseDate does: a date alone is 00:00 UTC of that day (day true).
func parseDate(s string) (ms int64, day bool, ok bool) {
	if len(s) == 10 {
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			return 0, false, false
		}
		return t.UnixMilli(), true, true
	}
	if len(s) < 16 || len(s) > 40 {
		return 0, false, false
	}
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), false, true
		}
	}
	return 0, false, false
}

// hasOffset reports whether date-time s carries a zone (Z or ±hh:mm).
func hasOffset(s string) bool {
	if len(s) <= 10 {
		return false
	}
	t := s[10:]
	return strings.HasSuffix(t, "Z") || strings.ContainsAny(t, "+-")
}

// validTimeZone is a loose check of an IANA zone name ("America/New_York", "Etc/GMT+5",
// "UTC"): loading the zone database would be I/O, and an unknown but well-formed name only
// labels the value.
func validTimeZone(s string) bool {
	if s == "" || len(s) > maxTimeZoneLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}
