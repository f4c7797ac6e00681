package busy

import "time"

// Rest is how many times as long as it worked background work sleeps at each pause while
// requests are in flight or lately were (busy.Quiet): three, so it takes at most a quarter of a
// core from them. The gate alone decides when a piece of work starts, and a piece (an embedding
// sub-batch) runs for up to a few hundred milliseconds of one core; on a 2-core machine the
// request, its client and the database then share the other core (docs/performance.md
// "Requests first and indexer throughput, fifth pass").
const Rest = 3

// Pacer spaces out the CPU-heavy steps of one goroutine's background work. Not safe for
// concurrent use: each goroutine doing such work has its own.
type Pacer struct {
	gate  *Gate
	quiet time.Duration
	since time.Time // when the current stretch of work began
	now   func() time.Time
	sleep func(time.Duration)
}

// Pacer returns a pacer for background work that yields to g's requests; quiet is how long no
// request must have been in flight for the work to run unpaced (busy.Quiet). A nil gate's pacer
// never pauses.
func (g *Gate) Pacer(quiet time.Duration) *Pacer {
	return &Pacer{gate: g, quiet: quiet, since: time.Now(), now: time.Now, sleep: time.Sleep}
}

// Pause is called between the steps of the work, every few milliseconds of CPU: while requests
// are in flight or one ended less than quiet ago, it sleeps Rest times as long as the work ran
// since the last pause. Sleeping gives the core back to the operating system, which a yield to
// the Go scheduler does not: the request's client and database need it as much as its goroutine.
func (p *Pacer) Pause() {
	if p == nil || p.gate == nil {
		return
	}
	now := p.now()
	if p.gate.IdleFor() < p.quiet {
		p.sleep(Rest * now.Sub(p.since))
		now = p.now()
	}
	p.since = now
}
