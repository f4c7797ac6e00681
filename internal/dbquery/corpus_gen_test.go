package dbquery_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestGenCorpus(t *testing.T) {
	if os.Getenv("GEN") == "" {
		t.Skip()
	}
	seeds := []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`, `{"property":"Score"}`,
		`{"and":[{"or":[{"and":[]}]}]}`,
		`{"and":[{"or":[{"property":"Name","title":{"contains":"a%_\\"}},{"property":"Score","number":{"greater_than":1e308}}]},{"timestamp":"created_time","created_time":{"past_week":{}}}]}`,
		`{"or":[{"property":"Stage","select":{"equals":"Twin"}},{"property":"Owner","people":{"contains":"11111111111141118111111111111111"}},{"property":"Due","date":{"equals":"2024-05-10T12:00:00+02:00"}}]}`,
		`{"property":"Due","date":{"this_week":{"x":1}},"bogus":[1,2]}`,
		`{"timestamp":"last_edited_time","last_edited_time":{"on_or_before":"2024-02-30"},"created_time":{}}`,
		`{"property":"Done","checkbox":{"equals":true,"does_not_equal":false}}`,
		`{"property":"Tags","multi_select":{"contains":"red"},"property":"Notes"}`,
		`{"property":"Notes","rich_text":{"contains":"\u0000"}}`,
		`{"property":"Calc","formula":{"number":{"equals":1}}}`,
		`{"and":[{"property":"ID","unique_id":{"less_than":-0.0}},{"property":"Files","files":{"is_empty":true}},{"property":"Link","relation":{"does_not_contain":"AAAAAAAA-0000-4000-8000-000000000001"}}]}`,
		`{"property":"Name","title":{"equals":""}}`,
		`{"or":[{"or":[{"or":[]}]}]}`,
		`{"property":"Creator","people":{"is_empty":false}}`,
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecodeFilter")
	os.MkdirAll(dir, 0o755)
	for _, s := range seeds {
		name := fmt.Sprintf("%x", sha256.Sum256([]byte(s)))[:16]
		body := "go test fuzz v1\n[]byte(" + strconv.Quote(s) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
