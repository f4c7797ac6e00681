package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config says where the bucket is. Endpoint is a URL (http://host:port or https://host) or
// a bare host, which means HTTPS.
type S3Config struct {
	Endpoint  string
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string // optional; asked of the server when empty
}

// S3 keeps files in an S3-compatible bucket and hands out presigned GET URLs. Uploads still go
// through Quire's own signed PUT, which enforces the announced size and content type and is
// single-use (a presigned S3 PUT is none of these), and are streamed on to the bucket.
type S3 struct {
	client *minio.Client
	bucket string
}

// NewS3 connects to the bucket and checks that it exists.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	host, secure := cfg.Endpoint, true
	if u, err := url.Parse(cfg.Endpoint); err == nil && u.Host != "" {
		host, secure = u.Host, u.Scheme != "http"
		if strings.Trim(u.Path, "/") != "" {
			return nil, errors.New("--s3-endpoint is a host, without a path (the bucket is --s3-bucket)")
		}
	}
	if host == "" || cfg.Bucket == "" {
		return nil, errors.New("S3 storage needs an endpoint and a bucket")
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("S3 storage needs credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or QUIRE_S3_ACCESS_KEY and QUIRE_S3_SECRET_KEY)")
	}
	client, err := minio.New(host, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: secure,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("S3 client: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	ok, err := client.BucketExists(cctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("S3 bucket %s: %w", cfg.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("S3 bucket %s does not exist", cfg.Bucket)
	}
	if cfg.Region == "" {
		// Presigning needs the region; asked once here, so that signing a URL never waits
		// for the network while an answer is being written.
		if cfg.Region, err = client.GetBucketLocation(cctx, cfg.Bucket); err != nil {
			return nil, fmt.Errorf("S3 bucket %s: region: %w", cfg.Bucket, err)
		}
		if cfg.Region == "" {
			cfg.Region = "us-east-1" // S3's answer for its first region
		}
		return NewS3(ctx, cfg)
	}
	return &S3{client: client, bucket: cfg.Bucket}, nil
}

// Put streams exactly size bytes to the bucket. S3 makes an object visible only once it is
// complete; an object written before a late size check fails is removed again.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if !validKey(key) {
		return fmt.Errorf("filestore: invalid key %q", key)
	}
	sr := newSizedReader(r, size)
	// One streamed PUT whatever the size (S3 takes up to 5 GiB in one, Quire's largest
	// upload): a multipart upload would hold each part in memory to send it.
	_, err := s.client.PutObject(ctx, s.bucket, key, ctxReader{ctx, sr}, size, minio.PutObjectOptions{
		ContentType:      contentType,
		DisableMultipart: true,
	})
	switch {
	case err == nil:
		err = sr.finish()
	case sr.short:
		err = ErrTooShort // minio-go reports the reader's error in its own words
	}
	if err != nil {
		// Nothing is left behind, also when the body was refused after it was all sent.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
		defer cancel()
		_ = s.Remove(rctx, key)
		return err
	}
	return nil
}

// PutUpTo spools a body of unknown length (at most max bytes) to a temporary file and then
// puts it with its length: S3 needs the length of a single PUT up front, and the multipart
// upload that would take it unknown holds a part of at least 5 MiB in memory per upload and
// leaves parts behind a server that stops midway.
func (s *S3) PutUpTo(ctx context.Context, key string, r io.Reader, max int64, contentType string) (int64, error) {
	if !validKey(key) {
		return 0, fmt.Errorf("filestore: invalid key %q", key)
	}
	tmp, err := os.CreateTemp("", "quire-upload-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	n, err := io.Copy(tmp, ctxReader{ctx, newCappedReader(r, max)})
	if err != nil {
		return 0, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	if err := s.Put(ctx, key, tmp, n, contentType); err != nil {
		return 0, err
	}
	return n, nil
}

// Remove deletes the object. Puts never use multipart uploads, so an unfinished one leaves
// nothing in the bucket.
func (s *S3) Remove(ctx context.Context, key string) error {
	if !validKey(key) {
		return fmt.Errorf("filestore: invalid key %q", key)
	}
	err := s.client.RemoveObject(ctx, s.bucket, key, minio.RemoveObjectOptions{})
	if resp := minio.ToErrorResponse(err); resp.Code == "NoSuchKey" {
		return nil
	}
	return err
}

// PresignGet returns a presigned GET URL valid until expires (at most 7 days, S3's limit).
func (s *S3) PresignGet(ctx context.Context, key string, expires time.Time) (string, error) {
	ttl := time.Until(expires).Round(time.Second)
	if ttl < time.Second {
		ttl = time.Second
	}
	u, err := s.client.PresignedGetObject(ctx, s.bucket, key, ttl, nil)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// Open is not offered: S3 files are read through presigned URLs.
func (s *S3) Open(context.Context, string) (io.ReadSeekCloser, int64, error) {
	return nil, 0, errors.New("filestore: S3 files are read through presigned URLs")
}

// Exists reports whether an object is stored under key.
func (s *S3) Exists(ctx context.Context, key string) (bool, error) {
	_, err := s.client.StatObject(ctx, s.bucket, key, minio.StatObjectOptions{})
	if resp := minio.ToErrorResponse(err); resp.Code == "NoSuchKey" {
		return false, nil
	}
	return err == nil, err
}
