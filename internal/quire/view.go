package quire

import "encoding/json"

// ObjectDatabaseView is the object field of a database view.
const ObjectDatabaseView = "database_view"

// View is a database view as stored: a row of its own beside the database node, ordered among
// the database's views by Position. Spec holds the view's settings in the stored form of
// package views; Name and Type are kept in columns too, for listings.
type View struct {
	ID          string
	WorkspaceID string
	DatabaseID  string
	Position    string
	Name        string
	Type        string
	Spec        json.RawMessage
	InTrash     bool
	Version     int64
	CreatedMs   int64
	CreatedBy   string
	EditedMs    int64
	EditedBy    string
}
