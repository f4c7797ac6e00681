package service

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"sync"
	"unsafe"

	"github.com/quire-dev/quire/internal/store"
)

// chunkMemoBytes bounds the memory a chunkMemo holds, its entries counted with their text (a
// node's chunks are at most 32 of at most 2,048 code points, a page of the about 14 KB,
// so this keeps several hundred pages) and their own size (records, one short chunk each, are
// mostly the latter).
const chunkMemoBytes = 8 << 20

// memoEntrySize is what an entry costs beside its id's and its chunks' text: the map's slot
// (key header and memoEntry, rounded up for the map's own words) and each chunk's struct.
const (
	memoEntrySize = 2*int(unsafe.Sizeof(memoEntry{})) + int(unsafe.Sizeof(""))
	memoChunkSize = int(unsafe.Sizeof(store.EmbedChunk{}))
)

// chunkMemo remembers, per node, the chunks last cut from its source and a hash of that source.
// Cutting (embedChunks) is a pure function of the title, the entries and their blocks, so a hit
// is exactly what cutting again would give, whoever wrote meanwhile: a changed source hashes
// differently. An append to a page past its first 200 entries (all the indexer reads of it)
// leaves that source as it was, and cutting it again was half of the indexer's pass over the
// page (docs/performance.md "Append, ninth pass"). It remembers no answer and nothing read from
// the database but the source it is keyed by.
type chunkMemo struct {
	mu    sync.Mutex
	bytes int
	nodes map[string]memoEntry
}

type memoEntry struct {
	sum    [sha256.Size]byte
	chunks []store.EmbedChunk // without vectors or hashes
	bytes  int
}

// chunks returns embedChunks(src) for node id, from the memo when src is the one last cut.
// The caller owns the slice (reuse sets its hashes and vectors).
func (m *chunkMemo) chunks(id string, src store.EmbedSource) []store.EmbedChunk {
	sum := sourceSum(src)
	m.mu.Lock()
	e, ok := m.nodes[id]
	m.mu.Unlock()
	if ok && e.sum == sum {
		return slices.Clone(e.chunks)
	}
	chunks := embedChunks(src)
	e = memoEntry{sum: sum, chunks: slices.Clone(chunks), bytes: memoEntrySize + len(id)}
	for _, c := range chunks {
		e.bytes += memoChunkSize + len(c.Text) + len(c.BlockID)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.nodes == nil {
		m.nodes = map[string]memoEntry{}
	}
	if old, ok := m.nodes[id]; ok {
		m.bytes -= old.bytes
		delete(m.nodes, id)
	}
	for other, o := range m.nodes { // Go's map order: a random node goes first
		if m.bytes+e.bytes <= chunkMemoBytes {
			break
		}
		m.bytes -= o.bytes
		delete(m.nodes, other)
	}
	if e.bytes <= chunkMemoBytes {
		m.nodes[id] = e
		m.bytes += e.bytes
	}
	return chunks
}

// sourceSum hashes what embedChunks reads of src, each string with its length before it.
func sourceSum(src store.EmbedSource) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	write := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(src.Title)
	binary.LittleEndian.PutUint64(n[:], uint64(len(src.Body)))
	h.Write(n[:])
	for i, t := range src.Body {
		write(t)
		write(src.BodyBlocks[i])
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}
