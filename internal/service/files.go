package service

import (
	"context"
	"errors"
	"io"
	"net/url"
	"time"

	"github.com/quire-dev/quire/internal/filestore"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/store"
)

// How long signed URLs work: an upload URL, and a download URL handed out in an object.
const (
	UploadTTL   = time.Hour
	DownloadTTL = time.Hour
	// uploadGrace is how long a PUT that started before its URL expired may still run before
	// the sweep takes it for abandoned and removes its bytes.
	uploadGrace = time.Hour
)

// files is the service's file storage: where bytes go, and the key of Quire's own signed URLs.
type files struct {
	backend filestore.Backend // nil: no storage configured, uploads are refused
	signer  *filestore.Signer
}

func newFiles(st *store.Store, b filestore.Backend) *files {
	return &files{backend: b, signer: filestore.NewSigner(st.Secret())}
}

func (s *Service) storage() (filestore.Backend, error) {
	if s.files.backend == nil {
		return nil, errors.New("no file storage configured")
	}
	return s.files.backend, nil
}

// CreateUpload records an announced upload: its signed PUT URL works once, until UploadTTL.
func (s *Service) CreateUpload(ctx context.Context, p *quire.Principal, in NewUpload) (*quire.File, error) {
	if _, err := s.storage(); err != nil {
		return nil, err
	}
	now := quire.NowMillis()
	id := quire.NewID()
	f := &quire.File{
		ID: id, WorkspaceID: p.WorkspaceID(), TokenID: p.Token.ID, ParentID: in.ParentID, Name: in.Name,
		ContentType: in.ContentType, Size: in.Size, Status: quire.FilePending, StorageKey: filestore.Key(id),
		CreatedMs: now, ExpiresMs: now + UploadTTL.Milliseconds(),
	}
	err := s.store.InTx(ctx, func(tx *store.Tx) error {
		if in.ParentID != "" {
			if err := s.reachTx(ctx, tx, p, in.ParentID, "page "+in.ParentID); err != nil {
				return err
			}
			n, err := tx.Node(ctx, p.WorkspaceID(), in.ParentID)
			if err != nil {
				return err
			}
			if n.Object != quire.ObjectPage {
				return quire.NotFound("page " + in.ParentID)
			}
			if n.Hidden() {
				return quire.Invalid("parent.page_id", quire.ReasonArchived, "The page is in trash; restore it first.")
			}
		}
		return tx.InsertFile(ctx, f)
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// UploadURL is the signed PUT address of an upload.
func (s *Service) UploadURL(f *quire.File) string {
	exp := f.ExpiresMs / 1000
	return s.baseURL + "/v2/files/" + f.ID + "/upload?" + url.Values{
		"expires": {itoa(exp)}, "signature": {s.files.signer.Sign(filestore.OpUpload, f.ID, exp)},
	}.Encode()
}

// FileURL is a download address of file id that works until expires: presigned by the
// backend, or signed for Quire's own GET.
func (s *Service) FileURL(ctx context.Context, id string, expires time.Time) (string, error) {
	if b := s.files.backend; b != nil {
		u, err := b.PresignGet(ctx, filestore.Key(id), expires)
		if err != nil || u != "" {
			return u, err
		}
	}
	exp := expires.Unix()
	return s.baseURL + "/v2/files/" + id + "/content?" + url.Values{
		"expires": {itoa(exp)}, "signature": {s.files.signer.Sign(filestore.OpDownload, id, exp)},
	}.Encode(), nil
}

// Upload is one PUT of an upload's bytes, as received.
type Upload struct {
	FileID, Expires, Signature string
	ContentType                string
	ContentLength              int64 // -1 when unknown (chunked)
	Body                       io.Reader
}

// ReceiveUpload checks a signed PUT and streams its body to storage. Refusals before the body
// is read (signature, expiry, reuse, content type, a Content-Length other than the announced
// size) leave the upload pending; once its bytes are being read the URL is used up: a body of
// the wrong size marks the upload failed and leaves no bytes behind.
func (s *Service) ReceiveUpload(ctx context.Context, up Upload) (*quire.File, error) {
	backend, err := s.storage()
	if err != nil {
		return nil, err
	}
	if err := s.checkSignature(filestore.OpUpload, up.FileID, up.Expires, up.Signature); err != nil {
		return nil, err
	}
	f, err := s.store.FileByID(ctx, up.FileID)
	if err != nil {
		return nil, err
	}
	if f.Status != quire.FilePending {
		return nil, quire.Conflict("This upload URL was already used (the upload is " + f.Status + "); ask for a new one.")
	}
	if !sameMediaType(f.ContentType, up.ContentType) {
		return nil, &quire.Error{Code: quire.CodeUnsupportedMedia,
			Message: "Content-Type must be " + f.ContentType + ", as announced."}
	}
	if up.ContentLength > f.Size {
		return nil, tooLarge(f)
	}
	if up.ContentLength >= 0 && up.ContentLength < f.Size {
		return nil, tooShort(f)
	}
	claimed, err := s.store.ClaimUpload(ctx, f.ID, quire.NowMillis())
	if err != nil {
		return nil, err
	}
	if !claimed {
		return nil, quire.Conflict("This upload URL was already used or has expired; ask for a new one.")
	}
	body := &bodyReader{r: up.Body}
	putErr := backend.Put(ctx, f.StorageKey, body, f.Size, f.ContentType)
	status := quire.FileUploaded
	if putErr != nil {
		status = quire.FileFailed
	}
	// The outcome is recorded even when the client has gone away.
	done, err := s.finishUpload(context.WithoutCancel(ctx), f, status)
	if err == nil && !done && putErr == nil {
		// The sweep expired this upload meanwhile: its bytes must not stay.
		putErr = quire.Conflict("The upload URL expired while the bytes arrived; ask for a new one.")
	}
	if putErr != nil {
		_ = backend.Remove(context.WithoutCancel(ctx), f.StorageKey)
		switch {
		case errors.Is(putErr, filestore.ErrTooLarge):
			return nil, tooLarge(f)
		case errors.Is(putErr, filestore.ErrTooShort), body.err != nil:
			// A body that broke off is the client's doing (a dropped connection), not ours.
			return nil, tooShort(f)
		}
		return nil, putErr
	}
	if err != nil {
		return nil, err
	}
	f.Status, f.CompletedMs = quire.FileUploaded, quire.NowMillis()
	return f, nil
}

func tooLarge(f *quire.File) error {
	return &quire.Error{Code: quire.CodePayloadTooLarge, Message: "The body is larger than the announced size of " + itoa(f.Size) + " bytes."}
}

func tooShort(f *quire.File) error {
	return &quire.Error{Code: quire.CodeValidation, Message: "The body is shorter than the announced size of " + itoa(f.Size) + " bytes.",
		Details: []quire.Detail{{Path: "size", Reason: quire.ReasonInvalidValue}}}
}

// checkSignature answers forbidden for a signed URL that was altered or has expired.
func (s *Service) checkSignature(op, id, expires, signature string) error {
	if !quire.ValidID(id) {
		return quire.NotFound("file " + id)
	}
	switch s.files.signer.Verify(op, id, expires, signature, time.Now()) {
	case filestore.Tampered:
		return quire.Forbidden("The URL's signature does not match it; use the URL exactly as it was returned.")
	case filestore.Expired:
		return quire.Forbidden("The URL has expired; ask for a new one.")
	}
	return nil
}

// OpenFile checks a signed download URL of the local store and opens the file; the caller
// closes it.
func (s *Service) OpenFile(ctx context.Context, id, expires, signature string) (*quire.File, io.ReadSeekCloser, error) {
	backend, err := s.storage()
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkSignature(filestore.OpDownload, id, expires, signature); err != nil {
		return nil, nil, err
	}
	f, err := s.store.FileByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	if f.Status != quire.FileUploaded {
		return nil, nil, quire.NotFound("file " + id)
	}
	rc, _, err := backend.Open(ctx, f.StorageKey)
	if err != nil {
		return nil, nil, err
	}
	return f, rc, nil
}

// DownloadURL answers GET /v2/files/download-url: a fresh URL of an uploaded file, for the
// token that uploaded it or one that can read a page using it (its icon or cover, or a block
// of its content; also the page it was uploaded for).
func (s *Service) DownloadURL(ctx context.Context, p *quire.Principal, id string) (string, time.Time, error) {
	if id == "" {
		return "", time.Time{}, quire.Invalid("file_id", quire.ReasonRequired, "file_id is required.")
	}
	if !quire.ValidID(id) {
		return "", time.Time{}, quire.Invalid("file_id", quire.ReasonInvalidValue, "file_id must be a file upload id.")
	}
	f, err := s.store.File(ctx, p.WorkspaceID(), id)
	if err != nil {
		return "", time.Time{}, err
	}
	if f.TokenID != p.Token.ID {
		ok, err := s.readsAUse(ctx, p, id)
		if err != nil {
			return "", time.Time{}, err
		}
		if !ok {
			return "", time.Time{}, quire.NotFound("file " + id)
		}
	}
	if f.Status != quire.FileUploaded {
		return "", time.Time{}, quire.Invalid("file_id", quire.ReasonInvalidValue, "The file is "+f.Status+", not uploaded.")
	}
	exp := time.Now().Add(DownloadTTL).Truncate(time.Second)
	u, err := s.FileURL(ctx, id, exp)
	return u, exp, err
}

// readsAUse reports whether the caller reaches a page that uses file id, walking the uses in
// batches on their primary key.
func (s *Service) readsAUse(ctx context.Context, p *quire.Principal, id string) (bool, error) {
	after := ""
	for {
		pages, err := s.store.FileUses(ctx, id, after, 100)
		if err != nil {
			return false, err
		}
		for _, page := range pages {
			err := s.Reach(ctx, p, page, "page")
			if err == nil {
				return true, nil
			}
			if !quire.IsCode(err, quire.CodeNotFound) {
				return false, err
			}
		}
		if len(pages) < 100 {
			return false, nil
		}
		after = pages[len(pages)-1]
	}
}

// SweepUploads removes what uploads that never completed left behind: pending uploads whose
// URL expired, and PUTs still unfinished uploadGrace after it (a server that stopped midway).
// Their bytes, partial ones included, are removed before they are marked expired.
func (s *Service) SweepUploads(ctx context.Context, now time.Time) (int, error) {
	if s.files.backend == nil {
		return 0, nil
	}
	n := 0
	for _, st := range []struct {
		status string
		before time.Time
	}{{quire.FilePending, now}, {quire.FileUploading, now.Add(-uploadGrace)}} {
		for {
			stale, err := s.store.StaleUploads(ctx, st.status, st.before.UnixMilli(), 100)
			if err != nil {
				return n, err
			}
			for _, f := range stale {
				if err := s.files.backend.Remove(ctx, f.StorageKey); err != nil {
					return n, err
				}
				ok, err := s.store.SetFileStatus(ctx, f.ID, st.status, quire.FileExpired)
				if err != nil {
					return n, err
				}
				if ok {
					n++
				}
			}
			if len(stale) < 100 {
				break
			}
		}
	}
	return n, nil
}

// bodyReader remembers a failure to read the request body, which tells a client that went
// away from a storage failure.
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}
