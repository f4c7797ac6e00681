package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// fileUploadObject is an upload: the contract's shape (Notion's, plus id and status) with the
// fields of the original service's two documented shapes (expiry_time, oss_name, size,
// file_url; file).
type fileUploadObject struct {
	Object        string            `json:"object" enum:"file_upload"`
	ID            string            `json:"id" format:"uuid"`
	UploadURL     string            `json:"upload_url" format:"uri" doc:"PUT the bytes here, with no token, once, before expires_time."`
	Method        string            `json:"method" enum:"PUT"`
	Headers       map[string]string `json:"headers" doc:"Headers the PUT must carry: Content-Type as announced."`
	ExpiresTime   string            `json:"expires_time" format:"date-time"`
	ExpiryTime    string            `json:"expiry_time" format:"date-time" doc:"The same as expires_time, under the original service's name."`
	Status        string            `json:"status" enum:"pending,uploaded"`
	Filename      string            `json:"filename"`
	ContentType   string            `json:"content_type"`
	ContentLength *int64            `json:"content_length" doc:"The size in bytes: announced (the PUT body must be exactly this long), or once uploaded the bytes received; null while an upload announced without a size is pending."`
	Size          *int64            `json:"size" doc:"The same as content_length."`
	OssName       string            `json:"oss_name" doc:"The upload's name in storage (its id): GET /v2/files/download-url takes it with a block_id, and a block, icon or cover names the upload by {\"type\":\"file\",\"file\":{\"oss_name\":…}}."`
	FileURL       string            `json:"file_url" format:"uri" doc:"Reads the file with no token once it is uploaded, until file.file.expiry_time."`
	File          uploadedFile      `json:"file"`
}

// uploadedFile is the file object blocks, icons and covers read back once the bytes are in.
type uploadedFile struct {
	Type string     `json:"type" enum:"file"`
	File servedFile `json:"file"`
	Name string     `json:"name"`
}

type fileUploadOutput struct{ Body fileUploadObject }

type createUploadInput struct {
	Body reqBody[createUploadRequest]
}

type downloadURLInput struct {
	FileID  string `query:"file_id" doc:"The id of an upload. Or name the file by block_id with oss_name."`
	BlockID string `query:"block_id" doc:"A block (image, file, pdf, video, audio; a callout whose icon is the file), page or database (its icon or cover) that holds the file; with oss_name."`
	OssName string `query:"oss_name" doc:"The file's oss_name (its upload id), as the upload-url answer and every read give it; with block_id."`
	// The original service's clients may send these; Quire serves the file as uploaded.
	Filename    string `query:"filename" doc:"Accepted and ignored: the file keeps its uploaded name."`
	ImgProcess  string `query:"img_process" doc:"Accepted and ignored: images are served as uploaded."`
	XOssProcess string `query:"x_oss_process" doc:"Accepted and ignored: images are served as uploaded."`
}

// fileDownloadObject is a download URL: Quire's shape (object, url, expires_time) with the
// original service's (type, name, file, ttl).
type fileDownloadObject struct {
	Object      string     `json:"object" enum:"file_download"`
	URL         string     `json:"url" format:"uri" doc:"Reads the file with no token until expires_time."`
	ExpiresTime string     `json:"expires_time" format:"date-time"`
	Type        string     `json:"type" enum:"file"`
	Name        string     `json:"name" doc:"The file's uploaded name."`
	File        servedFile `json:"file" doc:"The same URL, with its expiry_time and the file's oss_name."`
	TTL         int64      `json:"ttl" doc:"Seconds the URL works for from now."`
}

type fileDownloadOutput struct{ Body fileDownloadObject }

func (s *Server) registerFiles() {
	register(s, huma.Operation{
		OperationID: "create-file-upload", Method: http.MethodPost, Path: "/v2/files/upload-url",
		Summary: "Create a file upload", Tags: []string{"Files"}, Errors: []int{http.StatusNotFound},
		Description: "Announces a file and returns a signed, single-use PUT URL that accepts exactly `size` (or " +
			"`content_length`) bytes of `content_type` until `expires_time`, with no token; without a size, any body up to " +
			"100 MiB. Once uploaded, blocks (image, file, pdf, video), icons and covers use it as " +
			"{\"type\":\"file_upload\",\"file_upload\":{\"id\":…}} or {\"type\":\"file\",\"file\":{\"oss_name\":…}}.",
	}, route{scopes: []quire.Scope{quire.PagesWrite}}, s.createUpload)
	register(s, huma.Operation{
		OperationID: "retrieve-file-download-url", Method: http.MethodGet, Path: "/v2/files/download-url",
		Summary: "Get a download URL", Tags: []string{"Files"}, Errors: []int{http.StatusNotFound},
		Description: "A fresh URL that reads an uploaded file with no token. By `file_id`: for the token that uploaded " +
			"it or one that can read a page whose icon, cover or block uses it. By `block_id` with `oss_name` (the original " +
			"service's query): for a token that reads that block, page or database, which must hold the file. " +
			"`filename`, `img_process` and `x_oss_process` are accepted and ignored.",
	}, route{scopes: []quire.Scope{quire.BlocksRead}}, s.downloadURL)
	// The signed URLs: public (the signature is the credential), raw bodies, no size limit but
	// the announced one, and left out of the document like an S3 presigned URL.
	s.handle("PUT /v2/files/{file_id}/upload", http.HandlerFunc(s.putFile))
	s.handle("GET /v2/files/{file_id}/content", http.HandlerFunc(s.getFileContent))
}

func (s *Server) fileUploadObject(ctx context.Context, f *quire.File) (fileUploadObject, error) {
	// The file URL works once the bytes are in, and for as long as a download URL does.
	exp := time.Now().Add(service.DownloadTTL).Truncate(time.Second)
	u, err := s.svc.FileURL(ctx, f.ID, exp)
	if err != nil {
		return fileUploadObject{}, err
	}
	var size *int64
	if f.Size != service.SizeUnknown {
		size = &f.Size
	}
	return fileUploadObject{
		Object: "file_upload", ID: f.ID, UploadURL: s.svc.UploadURL(f), Method: http.MethodPut,
		Headers: map[string]string{"Content-Type": f.ContentType}, ExpiresTime: quire.FormatMillis(f.ExpiresMs),
		ExpiryTime: quire.FormatMillis(f.ExpiresMs), Status: f.Status, Filename: f.Name, ContentType: f.ContentType,
		ContentLength: size, Size: size, OssName: f.ID, FileURL: u,
		File: uploadedFile{Type: "file", File: servedFile{URL: u, ExpiryTime: quire.FormatMillis(exp.UnixMilli()), OssName: f.ID},
			Name: f.Name},
	}, nil
}

// createUpload answers POST /v2/files/upload-url.
func (s *Server) createUpload(ctx context.Context, in *createUploadInput) (*fileUploadOutput, error) {
	body, err := in.Body.object()
	if err != nil {
		return nil, err
	}
	nu, err := service.DecodeNewUpload(body)
	if err != nil {
		return nil, err
	}
	f, err := s.svc.CreateUpload(ctx, principal(ctx), nu)
	if err != nil {
		return nil, err
	}
	obj, err := s.fileUploadObject(ctx, f)
	if err != nil {
		return nil, err
	}
	return &fileUploadOutput{Body: obj}, nil
}

// downloadURL answers GET /v2/files/download-url.
func (s *Server) downloadURL(ctx context.Context, in *downloadURLInput) (*fileDownloadOutput, error) {
	d, err := s.svc.DownloadURL(ctx, principal(ctx), service.DownloadQuery{FileID: in.FileID, BlockID: in.BlockID, OssName: in.OssName})
	if err != nil {
		return nil, err
	}
	exp := quire.FormatMillis(d.Expires.UnixMilli())
	return &fileDownloadOutput{Body: fileDownloadObject{Object: "file_download", URL: d.URL, ExpiresTime: exp,
		Type: "file", Name: d.File.Name, File: servedFile{URL: d.URL, ExpiryTime: exp, OssName: d.File.ID},
		TTL: int64(time.Until(d.Expires).Round(time.Second) / time.Second)}}, nil
}

// uploadReadTimeout replaces the server's read timeout for an upload's body, which may take
// longer than a JSON request; a stalled client is still cut off.
const uploadReadTimeout = time.Hour

// putFile answers the signed PUT of an upload's bytes, streaming them to storage.
func (s *Server) putFile(w http.ResponseWriter, r *http.Request) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(uploadReadTimeout))
	q := r.URL.Query()
	f, err := s.svc.ReceiveUpload(r.Context(), service.Upload{
		FileID: r.PathValue("file_id"), Expires: q.Get("expires"), Signature: q.Get("signature"),
		ContentType: r.Header.Get("Content-Type"), ContentLength: r.ContentLength, Body: r.Body,
	})
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	obj, err := s.fileUploadObject(r.Context(), f)
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	writeJSON(w, http.StatusOK, obj)
}

// getFileContent serves a file of the local store through its signed URL, with ranges.
func (s *Server) getFileContent(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f, rc, err := s.svc.OpenFile(r.Context(), r.PathValue("file_id"), q.Get("expires"), q.Get("signature"))
	if err != nil {
		writeError(w, r, s.log, err)
		return
	}
	defer rc.Close()
	h := w.Header()
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": f.Name}))
	// An uploaded HTML or SVG file must not run as a page of this origin.
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("Cache-Control", "private, max-age=3600")
	http.ServeContent(w, r, "", time.UnixMilli(f.CompletedMs), rc)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // URLs keep their &
	if err := enc.Encode(v); err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
