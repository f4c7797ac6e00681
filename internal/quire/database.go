package quire

// Property types of a database schema (contract §6).
const (
	PropTitle          = "title"
	PropRichText       = "rich_text"
	PropNumber         = "number"
	PropSelect         = "select"
	PropMultiSelect    = "multi_select"
	PropStatus         = "status"
	PropDate           = "date"
	PropPeople         = "people"
	PropFiles          = "files"
	PropCheckbox       = "checkbox"
	PropURL            = "url"
	PropEmail          = "email"
	PropPhoneNumber    = "phone_number"
	PropRelation       = "relation"
	PropCreatedTime    = "created_time"
	PropCreatedBy      = "created_by"
	PropLastEditedTime = "last_edited_time"
	PropLastEditedBy   = "last_edited_by"
	PropUniqueID       = "unique_id"
)

// Schema is a database's properties in display order. Exactly one has type title, and its ID
// is "title"; the others have UUID ids.
type Schema []*Property

// Property is one column of a database.
type Property struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	// Options of select, multi_select and status, in order.
	Options []Option `json:"options,omitempty"`
	// Groups of status options.
	Groups []StatusGroup `json:"groups,omitempty"`
	// NumberFormat of number ("number", "percent", "dollar", …).
	NumberFormat string `json:"format,omitempty"`
	// Relation: the related database, and for a dual relation the property on the other side.
	RelationDatabaseID string `json:"database_id,omitempty"`
	DualPropertyID     string `json:"synced_property_id,omitempty"`
	// UniquePrefix of unique_id ("TASK" gives TASK-1, TASK-2, …).
	UniquePrefix string `json:"prefix,omitempty"`
}

// Option is one choice of a select, multi_select or status property.
type Option struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
}

// StatusGroup gathers status options (to_do, in_progress, complete).
type StatusGroup struct {
	ID        string   `json:"id"`
	Name      string   `json:"name"`
	Color     string   `json:"color"`
	OptionIDs []string `json:"option_ids"`
}

// ByID returns the property with id, or nil.
func (s Schema) ByID(id string) *Property {
	for _, p := range s {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// ByName returns the property named name, or nil.
func (s Schema) ByName(name string) *Property {
	for _, p := range s {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Lookup finds a property by id or, failing that, by name: filters and values may name either.
func (s Schema) Lookup(key string) *Property {
	if p := s.ByID(key); p != nil {
		return p
	}
	return s.ByName(key)
}

// Title is the schema's title property.
func (s Schema) Title() *Property {
	for _, p := range s {
		if p.Type == PropTitle {
			return p
		}
	}
	return nil
}
