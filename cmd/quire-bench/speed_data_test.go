package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestSpeedData checks the generated data against the shapes at full size: 2,000
// distinct words, none inside another or in the other text; 12 words a paragraph; the chosen
// WORDs in about 0.6% of 100,000 paragraphs; opt7 on about 5% of 100,000 records; numbers
// over 0–999,999 not in insertion order; two different tags per record.
func TestSpeedData(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range vocabulary {
		if len(w) != 6 || seen[w] {
			t.Fatalf("vocabulary word %q: not six letters, or twice", w)
		}
		seen[w] = true
	}
	if len(seen) != speedVocabulary {
		t.Fatalf("%d words, want %d", len(seen), speedVocabulary)
	}
	for _, text := range []string{sentence(newRand(1, 1), topics[0], 7), "Record 12: Outage", "Scratch page 3", "Corpus page 9",
		"Revised in the second pass."} {
		for _, w := range vocabulary {
			if strings.Contains(strings.ToLower(text), w) {
				t.Errorf("%q contains vocabulary word %q", text, w)
			}
		}
	}
	if p := corpusParagraph(3, 4); len(strings.Fields(p)) != speedWords || p != corpusParagraph(3, 4) {
		t.Errorf("paragraph %q: not %d words, or not the same twice", p, speedWords)
	}
	words, paras := searchWords(speedPages, speedSearchWords)
	total := float64(speedPages * speedParagraphs)
	for _, w := range words {
		if share := float64(paras[w]) / total; math.Abs(share-0.006) > 0.0005 {
			t.Errorf("WORD %q in %.3f%% of paragraphs, want about 0.6%%", w, 100*share)
		}
	}
	sel, ascending := 0, 0
	for i := range speedRecords {
		if recordSelect(i) == "opt7" {
			sel++
		}
		if n := recordNumber(i); n < 0 || n > 999_999 {
			t.Fatalf("record %d: Num %d", i, n)
		} else if i > 0 && n > recordNumber(i-1) {
			ascending++
		}
	}
	if share := float64(sel) / speedRecords; math.Abs(share-0.05) > 0.003 {
		t.Errorf("opt7 on %.2f%% of records, want about 5%%", 100*share)
	}
	if ascending < speedRecords/4 || ascending > 3*speedRecords/4 {
		t.Errorf("Num rises from one record to the next %d times of %d: insertion order", ascending, speedRecords)
	}
	users := []string{"u1", "u2"}
	for i := range 100 {
		props := recordProperties(i, users)
		if len(props) != len(speedSchema()) {
			t.Fatalf("record %d has %d properties, the schema %d", i, len(props), len(speedSchema()))
		}
		tags := props["Tags"].(map[string]any)["multi_select"].([]any)
		if len(tags) != 2 || mustJSON(tags[0]) == mustJSON(tags[1]) {
			t.Fatalf("record %d tags %v: want two different", i, tags)
		}
	}
}

// TestPageAnswerSize: the bare handler of the speed table encodes about 1.2 KB.
func TestPageAnswerSize(t *testing.T) {
	b, err := json.Marshal(thePageAnswer)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(b); n < 1100 || n > 1300 {
		t.Errorf("page answer is %d bytes, want about 1,200", n)
	}
}

// TestRecordBatches: the bodies encoded before the records phase hold every record once, in
// order, 100 a batch, each record's properties as recordProperties gives them.
func TestRecordBatches(t *testing.T) {
	users := []string{"u1", "u2"}
	batches, err := recordBatches(250, users)
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) != 3 {
		t.Fatalf("%d batches, want 3", len(batches))
	}
	next := 0
	for b, batch := range batches {
		var body struct {
			Mutations []struct {
				Op         string         `json:"op"`
				Properties map[string]any `json:"properties"`
			} `json:"mutations"`
		}
		if err := json.Unmarshal(batch.body, &body); err != nil {
			t.Fatalf("batch %d: %v", b, err)
		}
		if len(body.Mutations) != batch.records || batch.records != min(100, 250-b*100) {
			t.Fatalf("batch %d: %d mutations, says %d", b, len(body.Mutations), batch.records)
		}
		for _, m := range body.Mutations {
			want, _ := json.Marshal(recordProperties(next, users))
			got, _ := json.Marshal(m.Properties)
			if m.Op != "create" || string(got) != string(want) {
				t.Fatalf("record %d: op %q, properties %s, want %s", next, m.Op, got, want)
			}
			next++
		}
	}
}
