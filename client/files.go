package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// FilesService uploads files and makes download URLs.
type FilesService struct{ c *Client }

// FileUploadRequest announces an upload: the exact size and media type the PUT will send.
type FileUploadRequest struct {
	Parent      *Parent `json:"parent,omitempty"` // the page it is for (optional)
	Filename    string  `json:"filename"`
	ContentType string  `json:"content_type"`
	Size        int64   `json:"size"`
}

// FileUpload is an upload: PUT the bytes to UploadURL (Files.Upload does), then name ID
// in a block (FileBlock) or an icon (UploadedIcon).
type FileUpload struct {
	Object        string            `json:"object"`
	ID            string            `json:"id"`
	UploadURL     string            `json:"upload_url"`
	Method        string            `json:"method"`
	Headers       map[string]string `json:"headers"`
	ExpiresTime   time.Time         `json:"expires_time"`
	Status        string            `json:"status"` // pending, uploaded or failed
	Filename      string            `json:"filename"`
	ContentType   string            `json:"content_type"`
	ContentLength int64             `json:"content_length"`
	File          struct {
		Type string  `json:"type"`
		File FileURL `json:"file"`
		Name string  `json:"name"`
	} `json:"file"`
}

// FileDownload is a signed URL of a file, valid until ExpiresTime.
type FileDownload struct {
	Object      string    `json:"object"`
	URL         string    `json:"url"`
	ExpiresTime time.Time `json:"expires_time"`
}

// UploadURL announces an upload and answers where to PUT it.
func (s *FilesService) UploadURL(ctx context.Context, r FileUploadRequest, opts ...CallOption) (*FileUpload, error) {
	var out FileUpload
	_, err := s.c.do(ctx, request{method: http.MethodPost, path: "/v2/files/upload-url", body: r, opts: opts}, &out)
	return ret(&out, err)
}

// Upload sends exactly up.ContentLength bytes of body to up.UploadURL (signed, so without
// the token) and answers the upload, now uploaded. It is sent once: a reader cannot be
// rewound, and a failed upload needs a new UploadURL.
func (s *FilesService) Upload(ctx context.Context, up *FileUpload, body io.Reader) (*FileUpload, error) {
	method := up.Method
	if method == "" {
		method = http.MethodPut
	}
	req, err := http.NewRequestWithContext(ctx, method, up.UploadURL, body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = up.ContentLength
	if up.ContentLength == 0 {
		req.Body = http.NoBody
	}
	for k, v := range up.Headers {
		req.Header.Set(k, v)
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", up.ContentType)
	}
	var out FileUpload
	if _, err := s.c.send(req, &out); err != nil {
		return nil, fmt.Errorf("quire: uploading %s: %w", up.ID, err)
	}
	return &out, nil
}

// DownloadURL answers a signed URL of the file fileID.
func (s *FilesService) DownloadURL(ctx context.Context, fileID string) (*FileDownload, error) {
	var out FileDownload
	_, err := s.c.do(ctx, request{method: http.MethodGet, path: "/v2/files/download-url", query: url.Values{"file_id": {fileID}}}, &out)
	return ret(&out, err)
}
