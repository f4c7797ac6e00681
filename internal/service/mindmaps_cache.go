package service

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/quire-dev/quire/internal/quire"
)

// MindMapTree is a mind map's nodes indexed to be written out: the root, and the children of
// every node in order. A tree is never changed once made: an edit makes a new one that shares
// what it did not touch.
type MindMapTree struct {
	Root  *quire.MindMapNode
	Kids  map[string][]*quire.MindMapNode // by parent id, ordered by position
	Count int
}

// newTree indexes the nodes of a map, read in any order.
func newTree(rootID string, nodes []*quire.MindMapNode) *MindMapTree {
	t := &MindMapTree{Kids: map[string][]*quire.MindMapNode{}, Count: len(nodes)}
	for _, n := range nodes {
		if n.ID == rootID {
			t.Root = n
			continue
		}
		t.Kids[n.ParentID] = append(t.Kids[n.ParentID], n)
	}
	for _, kids := range t.Kids {
		if !slices.IsSortedFunc(kids, byPosition) {
			slices.SortFunc(kids, byPosition)
		}
	}
	return t
}

func byPosition(a, b *quire.MindMapNode) int { return strings.Compare(a.Position, b.Position) }

// nodeChange is one write of an edit to mind_map_nodes, replayed on a cached tree.
type nodeChange struct {
	insert []*quire.MindMapNode // new rows, parents first
	update *quire.MindMapNode   // a row as written
	delete string               // the root of a removed subtree
	from   string               // the parent of the updated or deleted node before the change
}

// apply returns the tree after changes, made in that order.
func (t *MindMapTree) apply(changes []nodeChange) *MindMapTree {
	out := &MindMapTree{Root: t.Root, Kids: maps.Clone(t.Kids), Count: t.Count}
	copied := map[string]bool{} // sibling lists this apply owns
	list := func(parent string) []*quire.MindMapNode {
		if !copied[parent] {
			out.Kids[parent] = slices.Clone(out.Kids[parent])
			copied[parent] = true
		}
		return out.Kids[parent]
	}
	insert := func(n *quire.MindMapNode) {
		l := list(n.ParentID)
		i, _ := slices.BinarySearchFunc(l, n, byPosition)
		out.Kids[n.ParentID] = slices.Insert(l, i, n)
	}
	remove := func(parent, id string) {
		out.Kids[parent] = slices.DeleteFunc(list(parent), func(n *quire.MindMapNode) bool { return n.ID == id })
	}
	for _, ch := range changes {
		switch {
		case ch.insert != nil:
			for _, n := range ch.insert {
				insert(n)
			}
			out.Count += len(ch.insert)
		case ch.update != nil && ch.update.ID == out.Root.ID:
			out.Root = ch.update
		case ch.update != nil:
			remove(ch.from, ch.update.ID)
			insert(ch.update)
		case ch.delete != "":
			remove(ch.from, ch.delete)
			stack := []string{ch.delete}
			for len(stack) > 0 {
				id := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, k := range out.Kids[id] {
					stack = append(stack, k.ID)
				}
				delete(out.Kids, id)
				out.Count--
			}
		}
	}
	return out
}

// treeCache keeps the trees of the mind maps read or edited lately, each as of one version of
// its map. Every write of a map's nodes bumps the map's version in the same transaction, so a
// tree cached at the version a request reads is the stored tree: a GET then skips reading
// 10,000 rows, and an edit answers with the cached tree changed by the rows it wrote instead
// of reading the whole tree again. A version written by another process is simply a miss.
type treeCache struct {
	mu    sync.Mutex
	trees map[string]*cachedTree
	nodes int
}

type cachedTree struct {
	version int64
	tree    *MindMapTree
}

// treeCacheNodes bounds the nodes kept, over all maps (about 150 bytes each).
const treeCacheNodes = 200_000

// get returns mind map id's tree as of version, or nil.
func (c *treeCache) get(id string, version int64) *MindMapTree {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t := c.trees[id]; t != nil && t.version == version {
		return t.tree
	}
	return nil
}

// put keeps t as mind map id's tree at version, unless a later version is kept already.
func (c *treeCache) put(id string, version int64, t *MindMapTree) {
	if t.Count > treeCacheNodes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.trees == nil {
		c.trees = map[string]*cachedTree{}
	}
	if old := c.trees[id]; old != nil {
		if old.version > version {
			return
		}
		c.nodes -= old.tree.Count
		delete(c.trees, id)
	}
	for k, v := range c.trees { // evict others until there is room
		if c.nodes+t.Count <= treeCacheNodes {
			break
		}
		c.nodes -= v.tree.Count
		delete(c.trees, k)
	}
	c.trees[id] = &cachedTree{version: version, tree: t}
	c.nodes += t.Count
}
