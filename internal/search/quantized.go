package search

import (
	"container/heap"
	"math"
	"runtime"
	"sync"

	"github.com/quire-dev/quire/internal/embed"
)

// Quantized holds vectors quantized to int8, one byte per dimension plus a scale (a quarter of
// float32), so that a semantic query scores 100,000 chunks in a few milliseconds: the service's
// vector cache keeps one per workspace and model, and picks candidates with it that are then
// scored again on their exact vectors. Slots of removed vectors are reused. The zero value is
// empty; the caller guards it with a lock.
type Quantized struct {
	dim      int
	nodes    []string          // node index → id
	nodeIdx  map[string]int32  // id → node index
	slotNode []int32           // slot → node index, -1 when free
	scale    []float32         // slot → scale / norm of the float32 vector (0: zero vector)
	data     []int8            // slot*dim … quantized components
	slotsOf  map[int32][]int32 // node index → its slots
	free     []int32
}

// Size is about how many bytes the vectors take.
func (s *Quantized) Size() int64 {
	return int64(len(s.data)) + int64(len(s.slotNode))*(4+4) + int64(len(s.nodes))*48
}

// Add quantizes v into a free slot of node id. A vector of another dimension than the first is
// left out: it cannot be compared (and never occurs within one model).
func (s *Quantized) Add(id string, v []float32) {
	if s.dim == 0 {
		s.dim = len(v)
	}
	if len(v) != s.dim {
		return
	}
	if s.nodeIdx == nil {
		s.nodeIdx, s.slotsOf = map[string]int32{}, map[int32][]int32{}
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

// Remove frees node id's slots; its index stays (reused if it comes back).
func (s *Quantized) Remove(id string) {
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
func (s *Quantized) bestByNode(qv []float32) []float32 {
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

// Ranked returns the ids of the (at most) n nodes with the best quantized score against qv,
// best first, and how many nodes have vectors.
func (s *Quantized) Ranked(qv []float32, n int) (ids []string, total int) {
	best := s.bestByNode(qv)
	var h scoreHeap
	for ni, c := range best {
		if c < -1.5 {
			continue
		}
		total++
		if len(h) < n {
			heap.Push(&h, Scored{s.nodes[ni], float64(c)})
		} else if float64(c) > h[0].Score {
			h[0] = Scored{s.nodes[ni], float64(c)}
			heap.Fix(&h, 0)
		}
	}
	ids = make([]string, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		ids[i] = heap.Pop(&h).(Scored).ID
	}
	return ids, total
}
