package embed

import (
	"context"
	"testing"
)

// TestEmbedPausesBetweenSteps: with WithPause the built-in model calls the pause between the
// steps of every forward pass (after each of its nine products and two attentions,
// per pass), and the vectors are those of a call without it.
func TestEmbedPausesBetweenSteps(t *testing.T) {
	texts := []string{"How do I reset my password?", longText(90), longText(120), longText(120), longText(120), longText(120)}
	e := Builtin()
	plain, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	pauses := 0
	paced, err := e.Embed(WithPause(context.Background(), func() { pauses++ }), texts)
	if err != nil {
		t.Fatal(err)
	}
	// 570 tokens: two passes of at most batchTokens, each with 11 steps (six in layer 0, five in layer 1).
	if pauses < 2*11 {
		t.Fatalf("%d pauses for two forward passes, want at least 22", pauses)
	}
	for i := range texts {
		for c := range plain[i] {
			if plain[i][c] != paced[i][c] {
				t.Fatalf("text %d: [%d] = %g paced, %g without pauses", i, c, paced[i][c], plain[i][c])
			}
		}
	}
	// The pause does not outlive its call: the pooled workspace goes back without it.
	before := pauses
	if _, err := e.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if pauses != before {
		t.Fatalf("a call without WithPause paused %d times", pauses-before)
	}
}
