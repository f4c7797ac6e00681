package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations
var migrations embed.FS

// migrate applies the engine's pending migrations. On PostgreSQL a session advisory lock makes
// several servers starting at once apply each migration exactly once; the others ask for the
// lock every second (goose's default, 5 s, held every server of a rollout back that long), for up
// to 5 minutes, and then find nothing left to apply.
func (s *Store) migrate(ctx context.Context) error {
	fsys, err := fs.Sub(migrations, "migrations/"+string(s.engine))
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	var opts []goose.ProviderOption
	if s.engine == Postgres {
		dialect = goose.DialectPostgres
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, s.write, fsys, opts...)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate %s store: %w", s.engine, err)
	}
	return nil
}
