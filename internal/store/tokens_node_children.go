package store

import (
	"context"

	"github.com/quire-dev/quire/internal/quire"
)

// AuthenticateNodeChildren is AuthenticateNode for a request that lists node id's children
// next: on PostgreSQL the joined read and the listing (Children's statement: at most limit
// children of id, after the key after when it is not nil) go in one round trip, the listing
// sent behind the joined read and run after it, each on its own snapshot as when they were two
// round trips. The listing is returned, with listed true, only when the joined read found the
// node within the token's reach; otherwise it was read for nothing and is dropped, and the
// caller goes on as after AuthenticateNode. On SQLite, where a read is no round trip, it is
// AuthenticateNode and listed is false.
//
// A children page on PostgreSQL was two round trips (the token and node, the children): each
// a write to the backend, a wait and a wake-up on both sides, about a tenth of the row's CPU
// on this machine, where a system call is dear.
func (s *Store) AuthenticateNodeChildren(ctx context.Context, secretHash, id string, fields NodeFields,
	after *ChildKey, limit int) (p *quire.Principal, n *quire.Node, bs []*quire.Block, listed bool, err error) {
	if s.pg == nil || limit < 1 {
		p, n, err = s.AuthenticateNode(ctx, secretHash, id, fields)
		return p, n, nil, false, err
	}
	read, err := fields.read(s.engine)
	if err != nil {
		return nil, nil, nil, false, err
	}
	c, err := s.pg.children(ctx, read, secretHash, id, after, limit)
	if err != nil {
		return nil, nil, nil, false, err
	}
	p, n, err = s.joined(ctx, c.sc, secretHash, id, c.err)
	if err != nil || n == nil {
		return p, n, nil, false, err
	}
	return p, n, c.list, true, nil
}
