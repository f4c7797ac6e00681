package store

import (
	"context"
	"encoding/json"

	"github.com/quire-dev/quire/internal/quire"
)

// Idempotency states.
const (
	IdemPending   = "pending"   // claimed; the request's write has not committed
	IdemCommitted = "committed" // the write committed; the response is not stored yet
	IdemDone      = "done"      // the response is stored and is replayed to repeats
)

// IdemClaim identifies the idempotency record a request owns. ClaimedMs tells this claim apart
// from a later takeover of the same key.
type IdemClaim struct {
	TokenID, Key string
	ClaimedMs    int64
}

// IdemRecord is the stored state of one (token, key).
type IdemRecord struct {
	RequestHash string
	State       string
	Status      int
	Headers     map[string]string
	Body        []byte
	ClaimedMs   int64
	CreatedMs   int64
}

type claimKey struct{}

// WithIdempotencyClaim returns a context under which the first committed write transaction also
// marks the claim committed.
func WithIdempotencyClaim(ctx context.Context, c *IdemClaim) context.Context {
	return context.WithValue(ctx, claimKey{}, c)
}

func claimFrom(ctx context.Context) *IdemClaim {
	c, _ := ctx.Value(claimKey{}).(*IdemClaim)
	return c
}

// markCommitted records, inside the request's own transaction, that its effect committed. It
// fails (and so rolls the effect back) when the claim was taken over by a retry meanwhile.
func markCommitted(ctx context.Context, tx querier, c *IdemClaim) error {
	res, err := tx.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'committed'
		WHERE token_id = $1 AND key = $2 AND claimed_ms = $3 AND state IN ('pending', 'committed')`,
		c.TokenID, c.Key, c.ClaimedMs)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return &quire.Error{Code: quire.CodeIdempotencyConflict,
			Message: "Another request with this Idempotency-Key took over; this one was not applied."}
	}
	return nil
}

// ClaimIdempotency tries to take (token, key) for a request whose body hashes to hash. It
// returns a claim when the caller owns the key now: the key was new, its record had expired
// (created before expiredBefore), or a pending claim was abandoned (claimed before staleBefore,
// e.g. by a server that crashed before committing). Otherwise it returns the existing record.
func (s *Store) ClaimIdempotency(ctx context.Context, tokenID, key, hash string, now, staleBefore, expiredBefore int64) (*IdemClaim, *IdemRecord, error) {
	res, err := s.write.ExecContext(ctx, `INSERT INTO idempotency_keys
		(token_id, key, request_hash, state, claimed_ms, created_ms) VALUES ($1, $2, $3, 'pending', $4, $4)
		ON CONFLICT (token_id, key) DO NOTHING`, tokenID, key, hash, now)
	if err != nil {
		return nil, nil, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return &IdemClaim{TokenID: tokenID, Key: key, ClaimedMs: now}, nil, nil
	}
	// Take over an expired record, or an abandoned pending claim of the same request.
	res, err = s.write.ExecContext(ctx, `UPDATE idempotency_keys
		SET request_hash = $3, state = 'pending', status = 0, headers = '{}', body = NULL, claimed_ms = $4, created_ms = $4
		WHERE token_id = $1 AND key = $2
		  AND (created_ms < $5 OR (state = 'pending' AND claimed_ms < $6 AND request_hash = $3))`,
		tokenID, key, hash, now, expiredBefore, staleBefore)
	if err != nil {
		return nil, nil, err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return &IdemClaim{TokenID: tokenID, Key: key, ClaimedMs: now}, nil, nil
	}
	rec, err := s.IdempotencyRecord(ctx, tokenID, key)
	return nil, rec, err
}

// IdempotencyRecord reads the record of (token, key); a missing one is not_found.
func (s *Store) IdempotencyRecord(ctx context.Context, tokenID, key string) (*IdemRecord, error) {
	r := &IdemRecord{}
	var headers string
	var body []byte
	err := s.write.QueryRowContext(ctx, `SELECT request_hash, state, status, headers, body, claimed_ms, created_ms
		FROM idempotency_keys WHERE token_id = $1 AND key = $2`, tokenID, key).
		Scan(&r.RequestHash, &r.State, &r.Status, &headers, &body, &r.ClaimedMs, &r.CreatedMs)
	if err != nil {
		return nil, notFoundIf(err, "idempotency record")
	}
	r.Body = body
	if err := json.Unmarshal([]byte(headers), &r.Headers); err != nil {
		return nil, err
	}
	return r, nil
}

// CompleteIdempotency stores the response of the request holding claim c.
func (s *Store) CompleteIdempotency(ctx context.Context, c *IdemClaim, status int, headers map[string]string, body []byte) error {
	h, err := json.Marshal(headers)
	if err != nil {
		return err
	}
	_, err = s.write.ExecContext(ctx, `UPDATE idempotency_keys SET state = 'done', status = $4, headers = $5, body = $6
		WHERE token_id = $1 AND key = $2 AND claimed_ms = $3`, c.TokenID, c.Key, c.ClaimedMs, status, string(h), body)
	return err
}

// ReleaseIdempotency gives a claim up when its request failed before committing anything, so a
// retry runs afresh. A committed claim is kept: its effect happened.
func (s *Store) ReleaseIdempotency(ctx context.Context, c *IdemClaim) error {
	_, err := s.write.ExecContext(ctx, `DELETE FROM idempotency_keys
		WHERE token_id = $1 AND key = $2 AND claimed_ms = $3 AND state = 'pending'`, c.TokenID, c.Key, c.ClaimedMs)
	return err
}

// PurgeIdempotency deletes records created before cutoff and returns how many went.
func (s *Store) PurgeIdempotency(ctx context.Context, cutoff int64) (int64, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM idempotency_keys WHERE created_ms < $1`, cutoff)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
