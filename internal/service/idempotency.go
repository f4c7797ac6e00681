package service

import (
	"context"
	"time"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// Idempotency-Key rules (contract §4).
const (
	IdempotencyTTL   = 24 * time.Hour   // a key is remembered this long
	idempotencyLease = 60 * time.Second // a pending claim older than this was abandoned
	idempotencyWait  = 10 * time.Second // a repeat waits this long for the first to finish
)

// BeginIdempotent starts a request carrying Idempotency-Key key whose method, path and body hash
// to hash. Exactly one of its results is set: a claim (run the request, then Complete or
// Release), or a stored response to replay. A repeat that arrives while the first is running
// waits for it; a different request under the same key is idempotency_conflict.
func (s *Service) BeginIdempotent(ctx context.Context, p *quire.Principal, key, hash string) (*store.IdemClaim, *store.IdemRecord, error) {
	deadline := time.Now().Add(idempotencyWait)
	delay := 5 * time.Millisecond
	for {
		now := quire.NowMillis()
		claim, rec, err := s.store.ClaimIdempotency(ctx, p.Token.ID, key, hash, now,
			now-idempotencyLease.Milliseconds(), now-IdempotencyTTL.Milliseconds())
		if err != nil {
			return nil, nil, err
		}
		if claim != nil {
			return claim, nil, nil
		}
		if rec.RequestHash != hash {
			return nil, nil, &quire.Error{Code: quire.CodeIdempotencyConflict,
				Message: "This Idempotency-Key was used with a different request. Use a new key for a new request."}
		}
		if rec.State == store.IdemDone {
			return nil, rec, nil
		}
		// A committed request whose answer never came was cut off (a crash): waiting is useless.
		abandoned := rec.State == store.IdemCommitted && rec.ClaimedMs < now-idempotencyLease.Milliseconds()
		if abandoned || time.Now().After(deadline) {
			msg := "A request with this Idempotency-Key is still in progress; retry later."
			if rec.State == store.IdemCommitted {
				msg = "The request with this Idempotency-Key was applied, but its response was not recorded; read the resource to see the result."
			}
			return nil, nil, &quire.Error{Code: quire.CodeIdempotencyConflict, Message: msg}
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}

// CompleteIdempotent stores the response of a claimed request for replay.
func (s *Service) CompleteIdempotent(ctx context.Context, c *store.IdemClaim, status int, headers map[string]string, body []byte) error {
	return s.store.CompleteIdempotency(ctx, c, status, headers, body)
}

// ReleaseIdempotent forgets a claim whose request failed before it changed anything.
func (s *Service) ReleaseIdempotent(ctx context.Context, c *store.IdemClaim) error {
	return s.store.ReleaseIdempotency(ctx, c)
}

// PurgeIdempotency deletes the records older than IdempotencyTTL.
func (s *Service) PurgeIdempotency(ctx context.Context) (int64, error) {
	return s.store.PurgeIdempotency(ctx, quire.NowMillis()-IdempotencyTTL.Milliseconds())
}
