package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// loadSecret returns the store's signing secret, making it on first use. Every server on one
// PostgreSQL reads the same secret, so a cursor or file URL made by one is accepted by the others.
func (s *Store) loadSecret(ctx context.Context) ([]byte, error) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	if _, err := s.write.ExecContext(ctx,
		`INSERT INTO settings (key, value) VALUES ('secret', $1) ON CONFLICT (key) DO NOTHING`,
		hex.EncodeToString(b)); err != nil {
		return nil, fmt.Errorf("store secret: %w", err)
	}
	var v string
	if err := s.write.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = 'secret'`).Scan(&v); err != nil {
		return nil, fmt.Errorf("load secret: %w", err)
	}
	return hex.DecodeString(v)
}
