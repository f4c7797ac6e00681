package service

import (
	"container/heap"
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/quire-dev/quire/internal/embed"
	"github.com/quire-dev/quire/internal/store"
)

// vectorCache keeps each searched workspace's vectors in memory, quantized to int8 (one byte per
// dimension plus a scale: a quarter of float32), so a semantic query scores 100,000 chunks in a
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
	bytes   atomic.Int64 // size() after the last refresh, read without the lock
	vectorData
}

// vectorData is what a vectorSet's lock guards. Slots of removed vectors are reused.
type vectorData struct {
	seq      int64 // the workspace's version this set reflects
	dim      int
	nodes    []string          // node index → id
	nodeIdx  map[string]int32  // id → node index
	slotNode []int32           // slot → node index, -1 when free
	scale    []float32         // slot → scale / norm of the float32 vector (0: zero vector)
	data     []int8            // slot*dim … quantized components
	slotsOf  map[int32][]int32 // node index → its slots
	free     []int32
	loaded   bool
	tooBig   bool // past the bound: not cached, queries stream from the database
}

// vectorCacheBytes is the default bound: 256 MiB hold 500,000 chunks of 512 dimensions.
const vectorCacheBytes = 256 << 20

// reloadAfter is how many changed nodes a refresh reloads one by one; past it, everything.
const reloadAfter = 5000

func newVectorCache(maxBytes int64) *vectorCache {
	return &vectorCache{maxBytes: maxBytes, sets: map[vectorKey]*vectorSet{}}
}

func (s *vectorData) size() int64 {
	return int64(len(s.data)) + int64(len(s.slotNode))*(4+4) + int64(len(s.nodes))*48
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
	if set.size() > c.maxBytes {
		set.vectorData = vectorData{loaded: true, tooBig: true, seq: seq}
	}
	tooBig := set.tooBig
	set.bytes.Store(set.size())
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
		*s = vectorData{nodeIdx: map[string]int32{}, slotsOf: map[int32][]int32{}}
		err := st.WorkspaceVectors(ctx, ws, model, nil, func(id string, v []float32) error {
			s.add(id, v)
			if s.size() > maxBytes {
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
			s.remove(id)
		}
		for i := 0; i < len(changed); i += 500 {
			part := changed[i:min(i+500, len(changed))]
			if err := st.WorkspaceVectors(ctx, ws, model, part, func(id string, v []float32) error {
				s.add(id, v)
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

// add quantizes v into a free slot of node id.
func (s *vectorData) add(id string, v []float32) {
	if s.dim == 0 {
		s.dim = len(v)
	}
	if len(v) != s.dim {
		return // another dimension cannot be compared; never within one model
	}
	ni, ok := s.nodeIdx[id]
	if !ok {
		ni = int32(len(s.nodes))
		s.nodes = append(s.nodes, id)
		s.nodeIdx[id] = ni
	}
	var slot int32
	if n := len(s.free); n > 0 {
		slot, s.free = s.free[n-1], s.free[:n-1]
	} else {
		slot = int32(len(s.slotNode))
		s.slotNode = append(s.slotNode, 0)
		s.scale = append(s.scale, 0)
		s.data = append(s.data, make([]int8, s.dim)...)
	}
	s.slotNode[slot] = ni
	s.slotsOf[ni] = append(s.slotsOf[ni], slot)
	scale, norm := quantize(s.data[int(slot)*s.dim:][:s.dim], v)
	if norm > 0 {
		s.scale[slot] = scale / norm
	} else {
		s.scale[slot] = 0
	}
}

// remove frees node id's slots; its index stays (reused if it comes back).
func (s *vectorData) remove(id string) {
	ni, ok := s.nodeIdx[id]
	if !ok {
		return
	}
	for _, slot := range s.slotsOf[ni] {
		s.slotNode[slot] = -1
		s.scale[slot] = 0
		s.free = append(s.free, slot)
	}
	delete(s.slotsOf, ni)
}

// quantize writes round(v/scale) into q, scale being max|v|/127, and returns scale and |v|.
func quantize(q []int8, v []float32) (scale, norm float32) {
	var maxAbs float32
	var sq float64
	for _, x := range v {
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
		sq += float64(x) * float64(x)
	}
	if maxAbs == 0 {
		clear(q)
		return 0, 0
	}
	scale = maxAbs / 127
	for i, x := range v {
		q[i] = int8(math.Round(float64(x / scale)))
	}
	return scale, float32(math.Sqrt(sq))
}

// bestByNode scores query vector qv against every slot and returns each node's best
// approximate cosine (-2 for nodes without vectors), splitting the slots among the cores.
func (s *vectorData) bestByNode(qv []float32) []float32 {
	best := make([]float32, len(s.nodes))
	for i := range best {
		best[i] = -2
	}
	if len(qv) != s.dim || len(s.slotNode) == 0 {
		return best
	}
	q := make([]int8, s.dim)
	qScale, qNorm := quantize(q, qv)
	if qNorm == 0 {
		return best
	}
	qf := qScale / qNorm
	slots := len(s.slotNode)
	parts := min(runtime.GOMAXPROCS(0), max(1, slots/8192))
	partBest := make([][]float32, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*slots/parts, (p+1)*slots/parts
		pb := best
		if p > 0 {
			pb = make([]float32, len(s.nodes))
			copy(pb, best)
		}
		partBest[p] = pb
		wg.Go(func() {
			for slot := lo; slot < hi; slot++ {
				ni := s.slotNode[slot]
				if ni < 0 {
					continue
				}
				c := float32(embed.DotInt8(q, s.data[slot*s.dim:][:s.dim])) * qf * s.scale[slot]
				if c > pb[ni] {
					pb[ni] = c
				}
			}
		})
	}
	wg.Wait()
	for _, pb := range partBest[1:] {
		for i, c := range pb {
			best[i] = max(best[i], c)
		}
	}
	return best
}

// ranked returns the ids of the (at most) n nodes with the best quantized score against qv,
// best first, and how many nodes have vectors. The caller holds the read lock.
func (s *vectorData) ranked(qv []float32, n int) (ids []string, total int) {
	best := s.bestByNode(qv)
	var h nodeHeap
	for ni, c := range best {
		if c < -1.5 {
			continue
		}
		total++
		if len(h) < n {
			heap.Push(&h, nodeScore{int32(ni), c})
		} else if c > h[0].score {
			h[0] = nodeScore{int32(ni), c}
			heap.Fix(&h, 0)
		}
	}
	ids = make([]string, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		ids[i] = s.nodes[heap.Pop(&h).(nodeScore).node]
	}
	return ids, total
}

type nodeScore struct {
	node  int32
	score float32
}

// nodeHeap is a min-heap of node scores: its root is the weakest kept.
type nodeHeap []nodeScore

func (h nodeHeap) Len() int           { return len(h) }
func (h nodeHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h nodeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *nodeHeap) Push(x any)        { *h = append(*h, x.(nodeScore)) }
func (h *nodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
