package quire

import "time"

// dateLayouts are the ISO 8601 forms a date value or date filter takes; a form without a zone
// is UTC (as in Notion).
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
}

// ParseDate reads an ISO 8601 date ("2024-05-10") or date-time ("2024-05-10T12:00:00.000+02:00";
// without a zone, UTC) and returns its start in Unix ms: a date alone is 00:00 UTC of that day
// (day true). Stored record values and query filters both read dates with it, so they agree.
func ParseDate(s string) (ms int64, day bool, ok bool) {
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
