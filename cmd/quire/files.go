package main

import (
	"context"
	"flag"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/service"
)

// fileFlags say where uploaded files live: a folder under --data, or an S3-compatible bucket.
type fileFlags struct {
	s3Endpoint, s3Bucket, s3Region string
}

func (ff *fileFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&ff.s3Endpoint, "s3-endpoint", env("QUIRE_S3_ENDPOINT", ""),
		"S3-compatible endpoint for uploaded files, e.g. https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000; "+
			"credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or QUIRE_S3_ACCESS_KEY/QUIRE_S3_SECRET_KEY; "+
			"default: files live in DATA/files (env QUIRE_S3_ENDPOINT)")
	fs.StringVar(&ff.s3Bucket, "s3-bucket", env("QUIRE_S3_BUCKET", ""), "bucket of uploaded files, with --s3-endpoint (env QUIRE_S3_BUCKET)")
	fs.StringVar(&ff.s3Region, "s3-region", env("QUIRE_S3_REGION", env("AWS_REGION", "")), "bucket region; asked of the endpoint when empty (env QUIRE_S3_REGION, AWS_REGION)")
}

// open returns the backend: the bucket when --s3-endpoint or --s3-bucket is set, else the
// folder DATA/files.
func (ff *fileFlags) open(ctx context.Context, dataDir string) (filestore.Backend, error) {
	if ff.s3Endpoint == "" && ff.s3Bucket == "" {
		return filestore.NewLocal(filepath.Join(dataDir, "files"))
	}
	return filestore.NewS3(ctx, filestore.S3Config{
		Endpoint: ff.s3Endpoint, Bucket: ff.s3Bucket, Region: ff.s3Region,
		AccessKey: env("QUIRE_S3_ACCESS_KEY", env("AWS_ACCESS_KEY_ID", "")),
		SecretKey: env("QUIRE_S3_SECRET_KEY", env("AWS_SECRET_ACCESS_KEY", "")),
	})
}

// sweepUploads removes uploads that were never completed, and their partial bytes, every minute.
func sweepUploads(ctx context.Context, svc *service.Service, logger *slog.Logger) {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		if n, err := svc.SweepUploads(ctx, time.Now()); err != nil && ctx.Err() == nil {
			logger.Warn("sweep expired uploads", "error", err)
		} else if n > 0 {
			logger.Info("swept expired uploads", "count", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
