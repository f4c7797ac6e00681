package properties

import (
	"slices"
	"strconv"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// SchemaChanges says what a PATCH did to a schema, so that the caller can bring records,
// record_values and views along.
type SchemaChanges struct {
	Added   []string // ids of new properties
	Removed []string // ids of removed properties: drop them from records (Values.Without), record_values and views
	Renamed []string // ids of renamed properties
	// Retyped are properties whose stored values no longer fit: the type changed, or a
	// relation now points at another database. Values.Conform converts what it can and
	// drops the rest.
	Retyped []string
	// Reindex are properties whose record_values rows are stale and must be rewritten from
	// Scalars for every record: the retyped ones, and option properties that lost options or
	// whose option order changed (select and status rows carry the option's index).
	Reindex []string
	// Relations are relation targets to check, new or changed (see RelationTarget).
	Relations []RelationTarget
	// Unsynced are synced properties on other databases that lost their partner here.
	Unsynced []SyncedRef
}

// Empty reports whether the patch changed nothing.
func (c *SchemaChanges) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Renamed)+len(c.Retyped)+len(c.Reindex)+len(c.Relations)+len(c.Unsynced) == 0
}

// ApplySchemaPatch applies the `properties` of PATCH /v2/databases/:id to current. Keys name
// properties by name or, failing that, by id. null removes a property (not the title one);
// {"name":…} renames; a type configuration ({T:{…}} or {"type":T,…}) replaces the type and
// configuration (except to or from title), options merging by id or name so that they keep
// their ids; a key that names no property adds one. v is the parsed object or its raw JSON
// (json.RawMessage, which keeps the request's order for new properties). current is not
// modified. Errors are a *quire.Error with a detail per problem, paths under path.
func ApplySchemaPatch(current quire.Schema, v any, path string) (quire.Schema, SchemaChanges, error) {
	var p quire.Problems
	var ch SchemaChanges
	fs, ok := fields(&p, path, v)
	if !ok {
		return nil, ch, p.Err()
	}
	next := cloneSchema(current)
	touched := map[string]string{}  // property id → the key path that touched it
	namePath := map[string]string{} // property id → where a clash with its new name belongs
	typePath := map[string]string{} // property id → where a clash with its new type belongs
	for _, f := range fs {
		fp := jsonbody.Join(path, f.key)
		cur := lookup(current, f.key)
		if cur == nil {
			if f.val == nil {
				p.Add(fp, quire.ReasonInvalidValue, "There is no property "+strconv.Quote(f.key)+" to remove.")
				continue
			}
			prop, np, ok := decodeNew(&p, fp, f.key, f.val)
			if !ok {
				continue
			}
			if prop.Type == quire.PropTitle {
				p.Add(jsonbody.Join(fp, "type"), quire.ReasonInvalidValue, "A database has exactly one title property.")
				continue
			}
			next = append(next, prop)
			namePath[prop.ID], typePath[prop.ID] = np, jsonbody.Join(fp, "type")
			ch.Added = append(ch.Added, prop.ID)
			if prop.Type == quire.PropRelation {
				ch.Relations = append(ch.Relations, target(fp, prop))
			}
			continue
		}
		if at, dup := touched[cur.ID]; dup {
			p.Add(fp, quire.ReasonInvalidValue, "Names the same property as "+at+".")
			continue
		}
		touched[cur.ID] = fp
		if f.val == nil {
			if cur.Type == quire.PropTitle {
				p.Add(fp, quire.ReasonInvalidValue, "The title property cannot be removed.")
				continue
			}
			next = slices.DeleteFunc(next, func(q *quire.Property) bool { return q.ID == cur.ID })
			ch.Removed = append(ch.Removed, cur.ID)
			ch.Unsynced = appendUnsynced(ch.Unsynced, cur, nil)
			continue
		}
		prop, np, ok := patchProperty(&p, fp, cur, f.val)
		if !ok {
			continue
		}
		namePath[cur.ID] = np
		if prop.Type != cur.Type {
			typePath[cur.ID] = jsonbody.Join(fp, "type")
		}
		next[slices.IndexFunc(next, func(q *quire.Property) bool { return q.ID == cur.ID })] = prop
		recordChange(&ch, fp, cur, prop)
	}
	checkSchema(&p, path, next, namePath, typePath)
	if err := p.Err(); err != nil {
		return nil, SchemaChanges{}, err
	}
	return next, ch, nil
}

// lookup finds a property by name or, failing that, by id: a name is what a client sees, and
// internal/dbquery resolves filter keys in the same order.
func lookup(s quire.Schema, key string) *quire.Property {
	if p := s.ByName(key); p != nil {
		return p
	}
	return s.ByID(key)
}

// patchProperty reads the entry for existing property cur: a rename, a new configuration, or
// both. namePath is where a clash with its (new) name belongs.
func patchProperty(p *quire.Problems, fp string, cur *quire.Property, v any) (*quire.Property, string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		p.Add(fp, quire.ReasonInvalidType, "A property schema must be an object or null.")
		return nil, "", false
	}
	before := len(p.Details)
	if id, ok := jsonbody.Str(p, fp, m, "id"); ok && id != cur.ID {
		p.Add(jsonbody.Join(fp, "id"), quire.ReasonInvalidValue, "Property ids cannot change.")
	}
	prop := cloneProperty(cur)
	namePath := fp
	if n, ok := jsonbody.Str(p, fp, m, "name"); ok {
		namePath = jsonbody.Join(fp, "name")
		if checkName(p, namePath, n, "A property") {
			prop.Name = n
		}
	}
	reconfigure := false
	for k := range m {
		if k != "name" && k != "id" {
			reconfigure = true
		}
	}
	if reconfigure {
		typ, cfg, present, ok := propertyType(p, fp, m)
		if ok {
			at := jsonbody.Join(fp, "type")
			if _, shorthand := m["type"]; !shorthand {
				at = jsonbody.Join(fp, typ)
			}
			switch {
			case cur.Type == quire.PropTitle && typ != quire.PropTitle:
				p.Add(at, quire.ReasonInvalidValue, "The title property's type cannot change.")
			case typ == quire.PropTitle && cur.Type != quire.PropTitle:
				p.Add(at, quire.ReasonInvalidValue, "A database has exactly one title property.")
			default:
				np := &quire.Property{ID: cur.ID, Name: prop.Name, Type: typ}
				configure(p, fp, np, cfg, present, cur)
				prop = np
			}
		}
	}
	return prop, namePath, len(p.Details) == before
}

// recordChange notes in ch how prop (at fp) differs from cur.
func recordChange(ch *SchemaChanges, fp string, cur, prop *quire.Property) {
	if prop.Name != cur.Name {
		ch.Renamed = append(ch.Renamed, cur.ID)
	}
	retyped := prop.Type != cur.Type ||
		(prop.Type == quire.PropRelation && prop.RelationDatabaseID != cur.RelationDatabaseID)
	switch {
	case retyped:
		ch.Retyped = append(ch.Retyped, cur.ID)
		ch.Reindex = append(ch.Reindex, cur.ID)
	case hasOptions(prop.Type) && staleOptions(cur.Options, prop.Options, prop.Type != quire.PropMultiSelect):
		ch.Reindex = append(ch.Reindex, cur.ID)
	}
	if prop.Type == quire.PropRelation && (cur.Type != quire.PropRelation ||
		prop.RelationDatabaseID != cur.RelationDatabaseID || prop.DualPropertyID != cur.DualPropertyID) {
		ch.Relations = append(ch.Relations, target(fp, prop))
	}
	ch.Unsynced = appendUnsynced(ch.Unsynced, cur, prop)
}

// staleOptions reports whether record_values rows written for options before are wrong for
// after: an option is gone or, when rows carry the option's index (select, status), an
// option kept its id but moved.
func staleOptions(before, after []quire.Option, indexed bool) bool {
	for i, o := range before {
		j := slices.IndexFunc(after, func(a quire.Option) bool { return a.ID == o.ID })
		if j < 0 || (indexed && i != j) {
			return true
		}
	}
	return false
}

// appendUnsynced notes cur's synced partner when cur was a dual relation that prop (nil when
// removed) no longer continues.
func appendUnsynced(out []SyncedRef, cur, prop *quire.Property) []SyncedRef {
	if cur.Type != quire.PropRelation || cur.DualPropertyID == "" {
		return out
	}
	if prop != nil && prop.Type == quire.PropRelation && prop.DualPropertyID == cur.DualPropertyID {
		return out
	}
	return append(out, SyncedRef{DatabaseID: cur.RelationDatabaseID, PropertyID: cur.DualPropertyID})
}

// checkSchema checks the rules across properties after a patch: unique names, one title, at
// most one unique_id, the size limit.
func checkSchema(p *quire.Problems, path string, s quire.Schema, namePath, typePath map[string]string) {
	if len(s) > MaxProperties {
		p.AddDetail(quire.Beyond(path, quire.ReasonTooMany, MaxProperties, int64(len(s))), "A database has at most "+strconv.Itoa(MaxProperties)+" properties.")
	}
	byName := map[string]*quire.Property{}
	var uniques []*quire.Property
	for _, q := range s {
		if q.Type == quire.PropUniqueID {
			uniques = append(uniques, q)
		}
		other, clash := byName[q.Name]
		if !clash {
			byName[q.Name] = q
			continue
		}
		// Report at whichever of the two this patch named (both when it named both).
		for _, x := range []*quire.Property{other, q} {
			if at, ok := namePath[x.ID]; ok {
				p.Add(at, quire.ReasonInvalidValue, "Another property is named "+strconv.Quote(q.Name)+".")
			}
		}
	}
	if len(uniques) > 1 {
		for _, q := range uniques {
			if at, ok := typePath[q.ID]; ok {
				p.Add(at, quire.ReasonInvalidValue, "A database has at most one unique_id property.")
			}
		}
	}
}

func cloneSchema(s quire.Schema) quire.Schema {
	out := make(quire.Schema, len(s))
	for i, p := range s {
		out[i] = cloneProperty(p)
	}
	return out
}

func cloneProperty(p *quire.Property) *quire.Property {
	c := *p
	c.Options = slices.Clone(p.Options)
	c.Groups = slices.Clone(p.Groups)
	for i := range c.Groups {
		c.Groups[i].OptionIDs = slices.Clone(c.Groups[i].OptionIDs)
	}
	return &c
}
