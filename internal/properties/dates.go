package properties

import "strings"

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
