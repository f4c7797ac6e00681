package service

import "sync"

// appendsInFlight counts, per page, this server's appends at the end of the page whose
// transaction has not ended (PostgreSQL). An append writes its blocks before it takes the
// page's lock, after the page's last position read on its own snapshot, so that appends to
// different pages never wait for each other; but two appends to one page that meet both read
// the same last position, and the second, once it holds the lock, moves its blocks after the
// first's (PlaceBlocks: an UPDATE of every block, which writes their rows and index entries a
// second time). When an append to the page is in flight here already, the next takes the
// page's lock first (Tx.LockPage) and reads the last position after the first has committed,
// so it writes its blocks once, where they stay ("PostgreSQL append, fourteenth pass" in
// docs/performance.md). Appends by another server, or a write that is not an append, still
// meet as before and are moved; the count after the lock (TouchPageCounting) finds them.
type appendsInFlight struct {
	mu    sync.Mutex
	pages map[string]int
}

// enter notes an append to page and tells whether another is in flight.
func (a *appendsInFlight) enter(page string) (others bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pages == nil {
		a.pages = map[string]int{}
	}
	a.pages[page]++
	return a.pages[page] > 1
}

// leave notes that an append to page has ended, once its transaction has.
func (a *appendsInFlight) leave(page string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pages[page]--; a.pages[page] <= 0 {
		delete(a.pages, page)
	}
}
