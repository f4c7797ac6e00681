package quire

import (
	"slices"
	"strings"
)

// Event types of the feed (GET /v2/events). A type is "<entity>.<what happened>".
const (
	EventPageCreated           = "page.created"
	EventPagePropertiesUpdated = "page.properties_updated"
	EventPageContentUpdated    = "page.content_updated"
	EventPageMoved             = "page.moved"
	EventPageDeleted           = "page.deleted"
	EventPageRestored          = "page.restored"

	EventDatabaseCreated           = "database.created"
	EventDatabasePropertiesUpdated = "database.properties_updated"
	EventDatabaseSchemaUpdated     = "database.schema_updated"
	EventDatabaseMoved             = "database.moved"
	EventDatabaseDeleted           = "database.deleted"
	EventDatabaseRestored          = "database.restored"

	EventViewCreated = "view.created"
	EventViewUpdated = "view.updated"
	EventViewDeleted = "view.deleted"

	EventMindMapUpdated      = "mind_map.updated"
	EventFileUploadCompleted = "file_upload.completed"
)

// Entity types of events.
const (
	EventEntityPage       = "page"
	EventEntityDatabase   = "database"
	EventEntityView       = "view"
	EventEntityMindMap    = "mind_map"
	EventEntityBlock      = "block"
	EventEntityFileUpload = "file_upload"
)

// EventTypes lists every event type, in the order the document shows them.
var EventTypes = []string{
	EventPageCreated, EventPagePropertiesUpdated, EventPageContentUpdated, EventPageMoved, EventPageDeleted, EventPageRestored,
	EventDatabaseCreated, EventDatabasePropertiesUpdated, EventDatabaseSchemaUpdated, EventDatabaseMoved, EventDatabaseDeleted, EventDatabaseRestored,
	EventViewCreated, EventViewUpdated, EventViewDeleted, EventMindMapUpdated, EventFileUploadCompleted,
}

// Event is one change in a workspace's feed, as recorded in the transaction that made it.
type Event struct {
	Seq         int64 // position in the workspace's feed, in commit order; 0 until committed
	ID          string
	Type        string
	WorkspaceID string
	EntityType  string
	EntityID    string
	ParentType  string // ParentPage, ParentDatabase, ParentWorkspace, "block", or "" when none
	ParentID    string
	// ReachID is the node a token must reach to see the event: the entity itself for pages,
	// databases and mind maps, the page of a block, the database of a view. Empty: only
	// workspace-scoped tokens see it.
	ReachID   string
	UserID    string // the user the token acts for; empty when unknown
	BotID     string // the token
	Data      EventData
	CreatedMs int64
}

// EventParent is a parent in an event's data (from and to of a move).
type EventParent struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// EventData is what changed, as far as the event's type says more than its entity.
type EventData struct {
	PropertyIDs []string     `json:"property_ids,omitempty"` // properties set on a record, or changed in a schema
	Fields      []string     `json:"fields,omitempty"`       // title, icon, cover, description, is_inline …
	BlockIDs    []string     `json:"block_ids,omitempty"`    // blocks appended, updated, trashed or restored
	From        *EventParent `json:"from,omitempty"`
	To          *EventParent `json:"to,omitempty"`
}

// Merge folds a later change of the same entity, in the same transaction, into d: a batch
// records one event per resource, with the union of what it changed and the first from and
// last to of a move.
func (d *EventData) Merge(later EventData) {
	d.PropertyIDs = union(d.PropertyIDs, later.PropertyIDs)
	d.Fields = union(d.Fields, later.Fields)
	d.BlockIDs = union(d.BlockIDs, later.BlockIDs)
	if d.From == nil {
		d.From = later.From
	}
	if later.To != nil {
		d.To = later.To
	}
}

func union(a, b []string) []string {
	for _, v := range b {
		if !slices.Contains(a, v) {
			a = append(a, v)
		}
	}
	return a
}

// Absorbs reports whether an event of type t makes a later event of type later about the same
// entity in the same transaction redundant: a created resource's first content and properties
// are part of its creation.
func Absorbs(t, later string) bool {
	if t == later {
		return true
	}
	if strings.HasSuffix(t, ".created") {
		return strings.HasSuffix(later, ".properties_updated") || strings.HasSuffix(later, ".content_updated") ||
			later == EventDatabaseSchemaUpdated || later == EventMindMapUpdated || later == EventViewUpdated
	}
	return false
}
