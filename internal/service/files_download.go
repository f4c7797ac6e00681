package service

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/quire-dev/quire/internal/quire"
)

// DownloadQuery names the file of GET /v2/files/download-url: by FileID (Quire's shape), or by
// OssName with the BlockID of a block, page or database that holds it (the original service's).
type DownloadQuery struct {
	FileID, BlockID, OssName string
}

// Download is a fresh download URL of an uploaded file.
type Download struct {
	File    *quire.File
	URL     string
	Expires time.Time
}

// DownloadURL answers GET /v2/files/download-url: a fresh URL of an uploaded file. By file_id,
// for the token that uploaded it or one that can read a page using it (its icon or cover, or a
// block of its content; also the page it was uploaded for). By block_id and oss_name, for a
// token that reads that block (a media block, or a callout whose icon is the file) or that
// page or database (its icon or cover), which must hold the file.
func (s *Service) DownloadURL(ctx context.Context, p *quire.Principal, q DownloadQuery) (*Download, error) {
	f, path, err := s.downloadFile(ctx, p, q)
	if err != nil {
		return nil, err
	}
	if f.Status != quire.FileUploaded {
		return nil, quire.Invalid(path, quire.ReasonInvalidValue, "The file is "+f.Status+", not uploaded.")
	}
	exp := time.Now().Add(DownloadTTL).Truncate(time.Second)
	u, err := s.FileURL(ctx, f.ID, exp)
	if err != nil {
		return nil, err
	}
	return &Download{File: f, URL: u, Expires: exp}, nil
}

// downloadFile finds the file a download query names, within the caller's reach, and the
// query parameter that named it.
func (s *Service) downloadFile(ctx context.Context, p *quire.Principal, q DownloadQuery) (*quire.File, string, error) {
	var pr quire.Problems
	switch {
	case q.FileID != "" && (q.BlockID != "" || q.OssName != ""):
		pr.Add("file_id", quire.ReasonInvalidValue, "Name the file by file_id, or by block_id with oss_name, not both.")
	case q.FileID != "" && !quire.ValidID(q.FileID):
		pr.Add("file_id", quire.ReasonInvalidValue, "file_id must be a file upload id.")
	case q.FileID != "":
	case q.BlockID == "" && q.OssName == "":
		pr.Add("file_id", quire.ReasonRequired, "file_id, or block_id with oss_name, is required.")
	default:
		if q.BlockID == "" {
			pr.Add("block_id", quire.ReasonRequired, "block_id is required with oss_name: the block, page or database that holds the file.")
		} else if !quire.ValidID(q.BlockID) {
			pr.Add("block_id", quire.ReasonInvalidValue, "block_id must be a block, page or database id.")
		}
		if q.OssName == "" {
			pr.Add("oss_name", quire.ReasonRequired, "oss_name is required with block_id.")
		} else if !quire.ValidID(q.OssName) {
			pr.Add("oss_name", quire.ReasonInvalidValue, "oss_name is the oss_name of an upload, as its upload-url answer or a read gave it.")
		}
	}
	if err := pr.Err(); err != nil {
		return nil, "", err
	}
	if q.FileID != "" {
		f, err := s.fileByID(ctx, p, strings.ToLower(q.FileID))
		return f, "file_id", err
	}
	id := strings.ToLower(q.OssName)
	c, err := s.resolveContainer(ctx, p, strings.ToLower(q.BlockID))
	if err != nil {
		return nil, "", err
	}
	ref := []byte(`"file_upload":{"id":"` + id + `"}`)
	held := c.Block != nil && bytes.Contains(c.Block.Content, ref) ||
		c.Block == nil && (bytes.Contains(c.Page.Icon, ref) || bytes.Contains(c.Page.Cover, ref))
	if !held {
		return nil, "", quire.Invalid("oss_name", quire.ReasonInvalidValue, "Block "+q.BlockID+" holds no file with this oss_name.")
	}
	f, err := s.store.File(ctx, p.WorkspaceID(), id)
	return f, "oss_name", err
}

// fileByID returns upload id for the token that announced it or one that reads a page using it.
func (s *Service) fileByID(ctx context.Context, p *quire.Principal, id string) (*quire.File, error) {
	f, err := s.store.File(ctx, p.WorkspaceID(), id)
	if err != nil {
		return nil, err
	}
	if f.TokenID != p.Token.ID {
		ok, err := s.readsAUse(ctx, p, id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, quire.NotFound("file " + id)
		}
	}
	return f, nil
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
