package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/quire-dev/quire/internal/service"
)

// sweepEvents deletes the feed's events older than retention, at start and then hourly.
// Several servers on one store may sweep at once: each deletes what is old, and the
// positions they record are the same.
func sweepEvents(ctx context.Context, svc *service.Service, retention time.Duration, logger *slog.Logger) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		if n, err := svc.SweepEvents(ctx, retention); err != nil && ctx.Err() == nil {
			logger.Warn("sweep events", "error", err)
		} else if n > 0 {
			logger.Info("swept events", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
