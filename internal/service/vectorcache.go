package service

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quire-dev/quire/internal/search"
	"github.com/quire-dev/quire/internal/store"
)

// vectorCache keeps each searched workspace's vectors in memory, quantized to int8
// (search.Quantized: a quarter of float32), so a semantic query scores 100,000 chunks in a
// few milliseconds instead of streaming 200 MB of float32 blobs from the database. It holds no
// visibility: trash, reach and filters are checked in the database, with the exact float32
// cosine, for the candidates the quantized scores pick. A workspace's vectors are loaded on its
// first query and kept in step by the workspace's version number (store.VectorVersion): each
// query asks for it and reloads only the nodes saved since, so writes by this or any other server
// on the same database are seen by the next query. The model is part of the key: vectors of
// another model are never loaded. Memory is bounded by maxBytes; the least recently queried
// workspaces are dropped first, and a workspace larger than the bound is not cached at all (its
// queries stream from the database as before).
type vectorCache struct {
	maxBytes int64

	mu    sync.Mutex
	sets  map[vectorKey]*vectorSet
	bytes int64 // of every set, as last measured
}

type vectorKey struct{ workspace, model string }

// vectorSet is one workspace's vectors of one model.
type vectorSet struct {
	mu      sync.RWMutex
	lastUse atomic.Int64
	bytes   atomic.Int64 // Size() after the last refresh, read without the lock
	vectorData
}

// vectorData is what a vectorSet's lock guards: the quantized vectors and what the cache knows
// of them.
type vectorData struct {
	search.Quantized
	seq    int64 // the workspace's version this set reflects
	loaded bool
	tooBig bool // past the bound: not cached, queries stream from the database
}

// vectorCacheBytes is the default bound: 256 MiB hold 500,000 chunks of 512 dimensions.
const vectorCacheBytes = 256 << 20

// reloadAfter is how many changed nodes a refresh reloads one by one; past it, everything.
const reloadAfter = 5000

func newVectorCache(maxBytes int64) *vectorCache {
	return &vectorCache{maxBytes: maxBytes, sets: map[vectorKey]*vectorSet{}}
}

// get returns workspace ws's vectors of model, up to date, read-locked (the caller RUnlocks),
// or nil when they do not fit the bound.
func (c *vectorCache) get(ctx context.Context, st *store.Store, ws, model string, tick int64) (*vectorSet, error) {
	seq, err := st.VectorVersion(ctx, ws)
	if err != nil {
		return nil, err
	}
	key := vectorKey{ws, model}
	c.mu.Lock()
	set := c.sets[key]
	if set == nil {
		set = &vectorSet{}
		c.sets[key] = set
	}
	c.mu.Unlock()
	set.lastUse.Store(tick)

	set.mu.RLock()
	if set.tooBig {
		set.mu.RUnlock()
		return nil, nil
	}
	if set.loaded && set.seq >= seq {
		return set, nil
	}
	set.mu.RUnlock()

	set.mu.Lock()
	if !set.loaded || set.seq < seq {
		if err := set.refresh(ctx, st, ws, model, seq, c.maxBytes); err != nil {
			set.vectorData = vectorData{} // load again next time
			set.mu.Unlock()
			return nil, err
		}
	}
	if set.Size() > c.maxBytes {
		set.vectorData = vectorData{loaded: true, tooBig: true, seq: seq}
	}
	tooBig := set.tooBig
	set.bytes.Store(set.Size())
	set.mu.Unlock()
	c.account(key)
	if tooBig {
		return nil, nil
	}
	set.mu.RLock()
	if set.tooBig || !set.loaded { // dropped or reset meanwhile: stream this once
		set.mu.RUnlock()
		return nil, nil
	}
	return set, nil
}

// account records set's size and drops the least recently used other sets while over the bound.
func (c *vectorCache) account(key vectorKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		var total int64
		var oldest vectorKey
		oldestUse := int64(math.MaxInt64)
		for k, s := range c.sets {
			total += s.bytes.Load()
			if k != key && s.lastUse.Load() < oldestUse {
				oldest, oldestUse = k, s.lastUse.Load()
			}
		}
		c.bytes = total
		if total <= c.maxBytes || oldestUse == math.MaxInt64 {
			return
		}
		delete(c.sets, oldest)
	}
}

// refresh brings the set to version seq: reads the version's changed nodes, or everything on the
// first load, after too many changes, or when the set grows past maxBytes.
func (s *vectorData) refresh(ctx context.Context, st *store.Store, ws, model string, seq, maxBytes int64) error {
	var changed []string
	full := !s.loaded
	if !full {
		var tooMany bool
		var err error
		changed, tooMany, err = st.ChangedVectorNodes(ctx, ws, s.seq, reloadAfter)
		if err != nil {
			return err
		}
		full = tooMany
	}
	if full {
		*s = vectorData{}
		err := st.WorkspaceVectors(ctx, ws, model, nil, func(id string, v []float32) error {
			s.Add(id, v)
			if s.Size() > maxBytes {
				return errTooBig
			}
			return nil
		})
		if err == errTooBig {
			*s = vectorData{loaded: true, tooBig: true, seq: seq}
			return nil
		}
		if err != nil {
			return err
		}
	} else if len(changed) > 0 {
		for _, id := range changed {
			s.Remove(id)
		}
		for part := range slices.Chunk(changed, 500) {
			if err := st.WorkspaceVectors(ctx, ws, model, part, func(id string, v []float32) error {
				s.Add(id, v)
				return nil
			}); err != nil {
				return err
			}
		}
	}
	s.loaded, s.seq = true, seq
	return nil
}

type cacheError string

func (e cacheError) Error() string { return string(e) }

const errTooBig = cacheError("vector cache: workspace past the bound")
