package service_test

import (
	"testing"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// TestDecodePlacement_Position: an append's position reads as service.PositionShape documents
// it: type required, after_block an object holding id only, other keys refused at their path.
func TestDecodePlacement_Position(t *testing.T) {
	const id = "7b0c2a8e-4f1d-4c3b-9a5e-2d6f8e1b3c4a"
	for _, tc := range []struct {
		name     string
		position any
		path     string // "" when valid
		reason   string
	}{
		{"start", map[string]any{"type": "start"}, "", ""},
		{"after a block", map[string]any{"type": "after_block", "after_block": map[string]any{"id": id}}, "", ""},
		{"no type", map[string]any{}, "position.type", quire.ReasonRequired},
		{"unknown type", map[string]any{"type": "middle"}, "position.type", quire.ReasonInvalidValue},
		{"unknown key", map[string]any{"type": "end", "at": 1}, "position.at", quire.ReasonUnknownField},
		{"after_block without id", map[string]any{"type": "after_block", "after_block": map[string]any{}}, "position.after_block.id", quire.ReasonRequired},
		{"after_block not an object", map[string]any{"type": "after_block", "after_block": id}, "position.after_block", quire.ReasonInvalidType},
		{"after_block unknown key", map[string]any{"type": "after_block", "after_block": map[string]any{"id": id, "x": 1}}, "position.after_block.x", quire.ReasonUnknownField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := service.DecodePlacement(map[string]any{"children": []any{}, "position": tc.position})
			if tc.path == "" {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			qe, ok := quire.AsError(err)
			if !ok || len(qe.Details) != 1 || qe.Details[0].Path != tc.path || qe.Details[0].Reason != tc.reason {
				t.Fatalf("err = %v, want one detail {%s %s}", err, tc.path, tc.reason)
			}
		})
	}
}
