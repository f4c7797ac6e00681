package quire

// Upload states of a file (Notion's names, with uploading while the bytes arrive).
const (
	FilePending   = "pending"   // announced; its signed PUT not used yet
	FileUploading = "uploading" // its PUT is streaming the bytes
	FileUploaded  = "uploaded"  // complete: blocks, icons and covers may use it
	FileFailed    = "failed"    // its PUT was refused or broke off; the bytes are gone
	FileExpired   = "expired"   // never uploaded in time; swept
)

// File is one upload: what was announced and where its bytes are.
type File struct {
	ID          string
	WorkspaceID string
	TokenID     string // the token that announced it
	ParentID    string // the page it was announced for, "" when none
	Name        string
	ContentType string
	Size        int64
	Status      string
	StorageKey  string
	CreatedMs   int64
	ExpiresMs   int64 // when its upload URL stops working
	CompletedMs int64 // when its bytes were stored; 0 before
}
