package service

import (
	"sync"

	"github.com/quire-dev/quire/internal/quire"
)

// treeCache keeps the nodes of the mind maps read or edited lately, each as of one version of
// its map. Every write of a map's nodes bumps the map's version in the same transaction, so
// nodes cached at the version a request reads are the stored nodes: a GET then skips reading
// 10,000 rows, and an edit answers with the cached nodes changed by the rows it wrote, instead
// of reading the whole tree again. A version written by another process is simply a miss.
// Cached nodes are never changed: an edit makes new rows for what it changes.
type treeCache struct {
	mu    sync.Mutex
	trees map[string]*cachedTree
	rows  int
}

type cachedTree struct {
	version int64
	rootID  string
	nodes   []*quire.MindMapNode // any order
}

// treeCacheRows bounds the nodes kept, over all maps (about 150 bytes each).
const treeCacheRows = 200_000

// get returns mind map id's nodes as of version, or nil.
func (c *treeCache) get(id string, version int64) *cachedTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.trees[id]; t != nil && t.version == version {
		return t
	}
	return nil
}

// put keeps t as mind map id's nodes, unless a later version is kept already.
func (c *treeCache) put(id string, t *cachedTree) {
	if len(t.nodes) > treeCacheRows/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trees == nil {
		c.trees = map[string]*cachedTree{}
	}
	old := c.trees[id]
	if old != nil {
		if old.version > t.version {
			return
		}
		c.rows -= len(old.nodes)
	}
	for k, v := range c.trees { // evict any others until there is room
		if c.rows+len(t.nodes) <= treeCacheRows {
			break
		}
		if k != id {
			c.rows -= len(v.nodes)
			delete(c.trees, k)
		}
	}
	c.trees[id] = t
	c.rows += len(t.nodes)
}

// nodeChange is one write of an edit to mind_map_nodes, replayed on cached nodes.
type nodeChange struct {
	insert []*quire.MindMapNode // new rows
	update *quire.MindMapNode   // the row as written
	delete string               // the root of a removed subtree
}

// applyChanges returns the nodes of base after changes, in the order they were written.
func applyChanges(base []*quire.MindMapNode, changes []nodeChange) []*quire.MindMapNode {
	cur := make(map[string]*quire.MindMapNode, len(base)+8)
	for _, n := range base {
		cur[n.ID] = n
	}
	for _, ch := range changes {
		switch {
		case ch.insert != nil:
			for _, n := range ch.insert {
				cur[n.ID] = n
			}
		case ch.update != nil:
			cur[ch.update.ID] = ch.update
		case ch.delete != "":
			kids := map[string][]string{}
			for _, n := range cur {
				kids[n.ParentID] = append(kids[n.ParentID], n.ID)
			}
			stack := []string{ch.delete}
			for len(stack) > 0 {
				id := stack[len(stack)-1]
				stack = append(stack[:len(stack)-1], kids[id]...)
				delete(cur, id)
			}
		}
	}
	out := make([]*quire.MindMapNode, 0, len(cur))
	for _, n := range cur {
		out = append(out, n)
	}
	return out
}
