package properties

import (
	"encoding/json"
	"fmt"

	"github.com/quire-dev/quire/internal/blocks"
)

// The stored form of Values is JSON keyed by property id; each value keeps the type it was
// written with, so that a retyped property reads it through convert. It was first written
// through encoding/json from these structs, and still is byte for byte (values_write.go).
type storedValue struct {
	Type     string          `json:"t"`
	RichText json.RawMessage `json:"rt,omitempty"`
	Short    json.RawMessage `json:"r,omitempty"` // the short form of a rich text (values_short.go)
	Number   *float64        `json:"n,omitempty"`
	Text     string          `json:"s,omitempty"`
	Checkbox bool            `json:"b,omitempty"`
	ID       string          `json:"id,omitempty"`
	IDs      []string        `json:"ids,omitempty"`
	Database string          `json:"db,omitempty"`
	Date     *storedDate     `json:"d,omitempty"`
	Files    []storedFile    `json:"f,omitempty"`
}

type storedDate struct {
	Start    string `json:"s"`
	End      string `json:"e,omitempty"`
	TimeZone string `json:"z,omitempty"`
}

type storedFile struct {
	Name     string `json:"n,omitempty"`
	Type     string `json:"t"`
	URL      string `json:"u,omitempty"`
	UploadID string `json:"id,omitempty"`
}

// UnmarshalValues reads values written by MarshalValues ("{}" or empty reads as none).
func UnmarshalValues(raw []byte) (Values, error) {
	if len(raw) == 0 {
		return Values{}, nil
	}
	if v, ok := readValues(raw); ok {
		return v, nil
	}
	return unmarshalValuesJSON(raw)
}

// unmarshalValuesJSON is UnmarshalValues through encoding/json: the reference for the shapes
// readValues leaves to it.
func unmarshalValuesJSON(raw []byte) (Values, error) {
	out := Values{}
	var m map[string]storedValue
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("properties: stored values: %w", err)
	}
	for id, sv := range m {
		val := Value{Type: sv.Type, Text: sv.Text, Checkbox: sv.Checkbox, ID: sv.ID, IDs: sv.IDs, DatabaseID: sv.Database}
		if len(sv.RichText) > 0 {
			rt, err := blocks.UnmarshalRichText(sv.RichText)
			if err != nil {
				return nil, err
			}
			val.RichText = rt
		}
		if len(sv.Short) > 0 {
			rt, err := unmarshalShortRichText(sv.Short)
			if err != nil {
				return nil, err
			}
			val.RichText = rt
		}
		if sv.Number != nil {
			val.Number = *sv.Number
		}
		if sv.Date != nil {
			val.Date = &Date{Start: sv.Date.Start, End: sv.Date.End, TimeZone: sv.Date.TimeZone}
		}
		for _, f := range sv.Files {
			val.Files = append(val.Files, File(f))
		}
		out[id] = val
	}
	return out, nil
}
