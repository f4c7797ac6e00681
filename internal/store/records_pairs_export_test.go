package store

// WaitPairsForTest returns once the pair registration QueryRecords started (if any) is done.
func (s *Store) WaitPairsForTest() { s.pairs.wait() }
