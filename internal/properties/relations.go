package properties

import (
	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// RelationTarget is a relation property whose related database the caller must check (it
// exists, is in the same workspace and within the token's reach; else a validation_error at
// Path, reason invalid_value) and, for a dual relation, give its synced property there.
type RelationTarget struct {
	Path       string // "properties.Tasks.relation.database_id"
	PropertyID string
	DatabaseID string
	// SyncedPropertyID is the id the synced property on DatabaseID must take (see
	// SyncedProperty); "" for a single_property relation.
	SyncedPropertyID string
}

// SyncedRef names a synced relation property on another database that no longer has a
// partner here (its relation was removed, retyped, made single or pointed elsewhere): the
// caller removes it, or turns it into a single_property relation.
type SyncedRef struct {
	DatabaseID string
	PropertyID string
}

// Relations lists the relation properties of a schema decoded by DecodeSchema at path, for the
// caller to check and, when dual, to give synced properties.
func Relations(s quire.Schema, path string) []RelationTarget {
	var out []RelationTarget
	for _, p := range s {
		if p.Type == quire.PropRelation {
			out = append(out, target(jsonbody.Join(path, p.Name), p))
		}
	}
	return out
}

func target(fp string, p *quire.Property) RelationTarget {
	return RelationTarget{Path: jsonbody.Join(jsonbody.Join(fp, quire.PropRelation), "database_id"), PropertyID: p.ID,
		DatabaseID: p.RelationDatabaseID, SyncedPropertyID: p.DualPropertyID}
}

// SyncedProperty is the partner of dual relation p of database databaseID, to add to the
// schema of p's related database under name: a dual relation back, with the id p reserved
// for it. (Notion names it "Related to <database title> (<property name>)".)
func SyncedProperty(databaseID string, p *quire.Property, name string) *quire.Property {
	return &quire.Property{ID: p.DualPropertyID, Name: name, Type: quire.PropRelation,
		RelationDatabaseID: databaseID, DualPropertyID: p.ID}
}
