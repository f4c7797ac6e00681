package service_test

import (
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestCheckVersion: If-Match matches version 3 with or without the weak prefix, among others
// or as "*"; any other version, or a malformed tag, is a conflict.
func TestCheckVersion(t *testing.T) {
	for _, tc := range []struct {
		header string
		ok     bool
	}{
		{"", true}, {"*", true}, {`W/"3"`, true}, {`"3"`, true}, {`W/"2", W/"3"`, true},
		{`W/"2"`, false}, {`W/"33"`, false}, {"3", false}, {`W/"3`, false},
	} {
		err := service.CheckVersion(tc.header, 3)
		if (err == nil) != tc.ok {
			t.Errorf("CheckVersion(%q) = %v, want ok=%v", tc.header, err, tc.ok)
		}
		if err != nil && !quire.IsCode(err, quire.CodeConflict) {
			t.Errorf("CheckVersion(%q) = %v, want conflict", tc.header, err)
		}
	}
}
