package blocks

import (
	"encoding/json"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// DecodePageIcon reads a page's or database's icon (emoji allowed) or cover (emoji refused) at
// path with the rules of a callout icon, and returns its canonical JSON; nil for null or when
// it is invalid (the problems are in p).
func DecodePageIcon(p *quire.Problems, path string, v any, emoji bool) json.RawMessage {
	before := len(p.Details)
	ic := decodeIcon(p, path, v)
	if ic == nil || len(p.Details) > before {
		return nil
	}
	if !emoji && ic.File == nil {
		p.Add(jsonbody.Join(path, "type"), quire.ReasonInvalidValue, "A cover is an external URL or an upload, not an emoji.")
		return nil
	}
	return appendIcon(nil, ic)
}
