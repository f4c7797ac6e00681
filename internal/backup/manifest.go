package backup

import (
	"encoding/json"
	"fmt"
)

// Format names Quire's backup archives in their manifest; FormatVersion is the layout this code
// writes and reads.
const (
	Format        = "quire-backup"
	FormatVersion = 1
	manifestName  = "manifest.json"
)

// Manifest describes an archive. It is its last entry, so that it can hold the checksum of
// every entry before it, each computed as the entry was written.
type Manifest struct {
	Format        string         `json:"format"`
	FormatVersion int            `json:"format_version"`
	QuireVersion  string         `json:"quire_version"`
	CreatedTime   string         `json:"created_time"`
	Engine        string         `json:"engine"`         // the engine backed up: sqlite or postgres
	SchemaVersion int64          `json:"schema_version"` // the store's last migration
	Tables        []TableInfo    `json:"tables"`
	Entries       []Entry        `json:"entries"`    // every entry but the manifest, in archive order
	Files         []FileInfo     `json:"files"`      // uploaded files whose bytes are in the archive
	S3Objects     []RemoteObject `json:"s3_objects"` // uploaded files kept in a bucket: listed, not copied
	MissingFiles  []FileInfo     `json:"missing_files"`
}

// TableInfo is one carried table: its columns as written and how many rows it had.
type TableInfo struct {
	Name    string   `json:"name"`
	Columns []Column `json:"columns"`
	Rows    int64    `json:"rows"`
}

// Entry is one archive entry and its checksum.
type Entry struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Rows   int64  `json:"rows,omitempty"` // for a table chunk
}

// FileInfo is an uploaded file's bytes in the archive, at files/KEY.
type FileInfo struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Size int64  `json:"size"`
}

// RemoteObject is an uploaded file whose bytes live in a bucket.
type RemoteObject struct {
	Bucket string `json:"bucket"`
	Key    string `json:"key"`
	Size   int64  `json:"size"`
}

// Rows is the number of rows of the named table in the archive.
func (m *Manifest) Rows(name string) int64 {
	for _, t := range m.Tables {
		if t.Name == name {
			return t.Rows
		}
	}
	return 0
}

func (m *Manifest) hasTable(name string) bool {
	for _, t := range m.Tables {
		if t.Name == name {
			return true
		}
	}
	return false
}

func parseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("manifest.json: format %q, want %q: not a Quire backup", m.Format, Format)
	}
	if m.FormatVersion != FormatVersion {
		return nil, fmt.Errorf("manifest.json: format version %d, this quire reads %d", m.FormatVersion, FormatVersion)
	}
	for _, t := range m.Tables {
		if _, err := tableNamed(t.Name); err != nil {
			return nil, fmt.Errorf("manifest.json: %w", err)
		}
	}
	return &m, nil
}
