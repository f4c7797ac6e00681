package service

import (
	"context"
	"sync"
)

// pageTurns lets this server's appends at the end of one page, or of one block, run one after
// the other (PostgreSQL; keyed by the container: appends into two blocks of a page never move
// each other's blocks). An append writes its blocks before it takes the page's lock, after the page's
// last position read on its own snapshot, so that appends to different pages never wait for
// each other; but two appends to one page that met both read the same last position, and the
// second, once it held the lock, moved its blocks after the first's (PlaceBlocks: an UPDATE of
// every block, which writes their rows and index entries a second time). They cannot both go
// on anyway (the page's lock orders their ends), so the second now waits here, holding
// nothing, until the first's transaction has ended, and then reads the last position after
// the first's blocks and writes its own once, where they stay ("PostgreSQL append, fourteenth
// pass" in docs/performance.md). Appends by another server, and writes that are not appends,
// still meet an append as before: the count after the lock (TouchPageCounting) finds them and
// the append moves.
type pageTurns struct {
	mu    sync.Mutex
	pages map[string]*pageTurn
}

// pageTurn is one page's turn: held by one append, waited for by the others.
type pageTurn struct {
	held    chan struct{} // a value while an append holds the turn
	waiters int           // appends holding or waiting for the turn
}

// take waits for page's turn, or for ctx's end, and returns its release.
func (p *pageTurns) take(ctx context.Context, page string) (release func(), err error) {
	p.mu.Lock()
	if p.pages == nil {
		p.pages = map[string]*pageTurn{}
	}
	t := p.pages[page]
	if t == nil {
		t = &pageTurn{held: make(chan struct{}, 1)}
		p.pages[page] = t
	}
	t.waiters++
	p.mu.Unlock()
	leave := func() {
		p.mu.Lock()
		if t.waiters--; t.waiters == 0 {
			delete(p.pages, page)
		}
		p.mu.Unlock()
	}
	select {
	case t.held <- struct{}{}:
		return func() { <-t.held; leave() }, nil
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
