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
	if limit := uploadLimit(f); up.ContentLength > limit {
		return nil, tooLarge(f, up.ContentLength)
	}
	if f.Size != SizeUnknown && up.ContentLength >= 0 && up.ContentLength < f.Size {
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
	size, putErr := putUpload(ctx, backend, f, body, up.ContentLength)
	status := quire.FileUploaded
	if putErr != nil {
		status, size = quire.FileFailed, f.Size
	}
	// The outcome is recorded even when the client has gone away.
	done, err := s.finishUpload(context.WithoutCancel(ctx), f, status, size)
	if err == nil && !done && putErr == nil {
		// The sweep expired this upload meanwhile: its bytes must not stay.
		putErr = quire.Conflict("The upload URL expired while the bytes arrived; ask for a new one.")
	}
	if putErr != nil {
		_ = backend.Remove(context.WithoutCancel(ctx), f.StorageKey)
		switch {
		case errors.Is(putErr, filestore.ErrTooLarge):
			return nil, tooLarge(f, -1)
		case errors.Is(putErr, filestore.ErrTooShort), body.err != nil:
			// A body that broke off is the client's doing (a dropped connection), not ours.
			return nil, tooShort(f)
		}
		return nil, putErr
	}
	if err != nil {
		return nil, err
	}
	f.Status, f.Size, f.CompletedMs = quire.FileUploaded, size, quire.NowMillis()
	return f, nil
}

// putUpload stores an upload's body and returns its size: exactly the announced size, or for
// an upload announced without one the PUT's Content-Length, or when the body is chunked
// whatever it holds up to MaxUnsizedFile.
func putUpload(ctx context.Context, backend filestore.Backend, f *quire.File, body io.Reader, length int64) (int64, error) {
	switch {
	case f.Size != SizeUnknown:
		return f.Size, backend.Put(ctx, f.StorageKey, body, f.Size, f.ContentType)
	case length >= 0:
		return length, backend.Put(ctx, f.StorageKey, body, length, f.ContentType)
	}
	return backend.PutUpTo(ctx, f.StorageKey, body, MaxUnsizedFile, f.ContentType)
}

// uploadLimit is the most bytes an upload's PUT may send.
func uploadLimit(f *quire.File) int64 {
	if f.Size == SizeUnknown {
		return MaxUnsizedFile
	}
	return f.Size
}

// tooLarge refuses a body over the upload's limit; actual is the body's Content-Length, -1
// for a chunked body that was cut off one byte past the limit (so it reports limit+1: at least).
func tooLarge(f *quire.File, actual int64) error {
	limit := uploadLimit(f)
	msg := "The body is larger than the announced size of " + itoa(limit) + " bytes."
	if f.Size == SizeUnknown {
		msg = "The body is larger than " + itoa(limit) + " bytes (100 MiB), the limit of an upload announced without a size; announce its size (up to 5 GiB) instead."
	}
	if actual < 0 {
		actual = limit + 1
	}
	return &quire.Error{Code: quire.CodePayloadTooLarge, Message: msg,
		Details: []quire.Detail{quire.Beyond("size", quire.ReasonOutOfRange, limit, actual)}}
}

func tooShort(f *quire.File) error {
	msg := "The body is shorter than the announced size of " + itoa(f.Size) + " bytes."
	if f.Size == SizeUnknown {
		// Announced without a size, only a body that broke off before its Content-Length ends here.
		msg = "The body ended before its Content-Length."
	}
	return &quire.Error{Code: quire.CodeValidation, Message: msg, Details: []quire.Detail{{Path: "size", Reason: quire.ReasonInvalidValue}}}
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
