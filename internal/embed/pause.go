package embed

import "context"

type pauseKey struct{}

// WithPause returns ctx carrying pause, which the built-in model calls between the steps of a
// forward pass (each a few milliseconds of one core: a product, a head's attention, a layer
// norm) when Embed is given the returned context. Background work passes a function that sleeps
// while requests need the cores (busy.Pacer), so that it gives them back within a step rather
// than at the end of the call. Other embedders ignore it.
func WithPause(ctx context.Context, pause func()) context.Context {
	return context.WithValue(ctx, pauseKey{}, pause)
}

// pauseOf is ctx's pause function, or noPause.
func pauseOf(ctx context.Context) func() {
	if p, ok := ctx.Value(pauseKey{}).(func()); ok && p != nil {
		return p
	}
	return noPause
}

func noPause() {}

// Pause calls ctx's pause function (WithPause), if any: an embedder that does its CPU work in
// steps calls it between them.
func Pause(ctx context.Context) { pauseOf(ctx)() }
