package properties

import (
	"sort"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// DecodeSchema reads the `properties` of POST /v2/databases: a map from property name to
// {"type":T, T:{config}} or Notion's shorthand {T:{config}}. v is the object as parsed by
// encoding/json, or its raw JSON (json.RawMessage), which keeps the request's key order as
// the schema order; a parsed map has lost it, so the title comes first and the others follow
// sorted by name. The title property gets the id "title", the others new UUIDs. Errors are a
// *quire.Error (validation_error) with a detail per problem, paths under path.
func DecodeSchema(v any, path string) (quire.Schema, error) {
	var p quire.Problems
	fs, ok := fields(&p, path, v)
	if !ok {
		return nil, p.Err()
	}
	if len(fs) > MaxProperties {
		p.AddDetail(quire.Beyond(path, quire.ReasonTooMany, MaxProperties, int64(len(fs))), "A database has at most "+strconv.Itoa(MaxProperties)+" properties.")
		return nil, p.Err()
	}
	if _, parsed := v.(map[string]any); parsed {
		titleFirst(fs)
	}
	var s quire.Schema
	namedAt := map[string]string{}
	var titles, uniques []string
	for _, f := range fs {
		fp := jsonbody.Join(path, f.key)
		prop, namePath, ok := decodeNew(&p, fp, f.key, f.val)
		if prop == nil {
			continue
		}
		// An entry with other problems still counts as the title it means to be, so that it
		// is not also reported missing.
		switch prop.Type {
		case quire.PropTitle:
			titles = append(titles, fp)
			prop.ID = "title"
		case quire.PropUniqueID:
			uniques = append(uniques, fp)
		}
		if at, dup := namedAt[prop.Name]; dup && prop.Name != "" {
			p.Add(namePath, quire.ReasonInvalidValue, "Another property ("+at+") has the same name.")
			continue
		}
		namedAt[prop.Name] = fp
		if ok {
			s = append(s, prop)
		}
	}
	switch {
	case len(titles) == 0:
		p.Add(path, quire.ReasonRequired, "A database needs exactly one title property.")
	case len(titles) > 1:
		p.Add(path, quire.ReasonInvalidValue, "A database has exactly one title property: "+strings.Join(titles, ", ")+".")
	}
	for _, at := range uniques[min(1, len(uniques)):] {
		p.Add(jsonbody.Join(at, "type"), quire.ReasonInvalidValue, "A database has at most one unique_id property.")
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// titleFirst orders sorted fields with the title property first: without the request's order,
// that is the order Notion's own clients show.
func titleFirst(fs []field) {
	sort.SliceStable(fs, func(i, j int) bool {
		return isTitleEntry(fs[i].val) && !isTitleEntry(fs[j].val)
	})
}

func isTitleEntry(v any) bool {
	m, _ := v.(map[string]any)
	if t, ok := m["type"]; ok {
		return t == quire.PropTitle
	}
	_, ok := m[quire.PropTitle]
	return ok
}

// decodeNew reads one new property at fp (key is its key in the body): its name, type and
// configuration. It has no id yet unless it got a new UUID. namePath is where a problem with
// its name belongs.
func decodeNew(p *quire.Problems, fp, key string, v any) (prop *quire.Property, namePath string, ok bool) {
	m, isObj := v.(map[string]any)
	if !isObj {
		p.Add(fp, quire.ReasonInvalidType, "A property schema must be an object.")
		return nil, "", false
	}
	before := len(p.Details)
	// id is accepted and ignored: a schema read from one database may be posted to create
	// another, and the new one gets ids of its own.
	jsonbody.Str(p, fp, m, "id")
	name, namePath := key, fp
	if n, ok := jsonbody.Str(p, fp, m, "name"); ok {
		name, namePath = n, jsonbody.Join(fp, "name")
	}
	checkName(p, namePath, name, "A property")
	typ, cfg, present, ok := propertyType(p, fp, m)
	prop = &quire.Property{ID: quire.NewID(), Name: name, Type: typ}
	if ok {
		configure(p, fp, prop, cfg, present, nil)
	}
	return prop, namePath, len(p.Details) == before
}

// propertyType finds an entry's type: its "type" field, or else its one type key. cfg is the
// configuration object under that key (present false when the key is absent: {} then).
// Unknown fields other than name and id are reported here.
func propertyType(p *quire.Problems, fp string, m map[string]any) (typ string, cfg any, present, ok bool) {
	var typeKeys []string
	for _, k := range jsonbody.SortedKeys(m) {
		switch {
		case k == "type" || k == "name" || k == "id":
		case Known(k) || notYet[k]:
			typeKeys = append(typeKeys, k)
		default:
			jsonbody.UnknownKey(p, fp, k)
		}
	}
	if tv, hasType := m["type"]; hasType {
		t, isStr := tv.(string)
		switch {
		case !isStr:
			p.Add(jsonbody.Join(fp, "type"), quire.ReasonInvalidType, "type must be a string.")
			return "", nil, false, false
		case notYet[t]:
			p.Add(jsonbody.Join(fp, "type"), quire.ReasonInvalidValue, "Properties of type "+t+" are not supported yet.")
			return "", nil, false, false
		case !Known(t):
			p.Add(jsonbody.Join(fp, "type"), quire.ReasonInvalidValue, "Unknown property type "+strconv.Quote(t)+".")
			return "", nil, false, false
		}
		ok = true
		for _, k := range typeKeys {
			if k != t {
				p.Add(jsonbody.Join(fp, k), quire.ReasonUnknownField, "The property's type is "+t+", so it has no "+k+" configuration.")
				ok = false
			}
		}
		cfg, present = m[t]
		return t, cfg, present, ok
	}
	switch len(typeKeys) {
	case 0:
		p.Add(jsonbody.Join(fp, "type"), quire.ReasonRequired, "A property needs a type.")
		return "", nil, false, false
	case 1:
	default:
		p.Add(fp, quire.ReasonInvalidValue, "A property has one type; found "+strings.Join(typeKeys, ", ")+".")
		return "", nil, false, false
	}
	t := typeKeys[0]
	if notYet[t] {
		p.Add(jsonbody.Join(fp, t), quire.ReasonInvalidValue, "Properties of type "+t+" are not supported yet.")
		return "", nil, false, false
	}
	return t, m[t], true, true
}

// configure reads the configuration of prop's type into prop. cur is the property as it was
// before a PATCH (nil when new): its options and status groups are kept and merged, and a
// relation to the same database keeps its synced property.
func configure(p *quire.Problems, fp string, prop *quire.Property, cfg any, present bool, cur *quire.Property) {
	cp := jsonbody.Join(fp, prop.Type)
	var m map[string]any
	if present {
		var ok bool
		if m, ok = jsonbody.Object(p, cp, cfg); !ok {
			return
		}
	}
	switch prop.Type {
	case quire.PropNumber:
		jsonbody.Unknown(p, cp, m, "format")
		prop.NumberFormat = defaultNumberFormat
		if f, ok := jsonbody.Str(p, cp, m, "format"); ok {
			if numberFormats[f] {
				prop.NumberFormat = f
			} else {
				p.Add(jsonbody.Join(cp, "format"), quire.ReasonInvalidValue, "Unknown number format "+strconv.Quote(f)+".")
			}
		}
	case quire.PropSelect, quire.PropMultiSelect:
		jsonbody.Unknown(p, cp, m, "options")
		prop.Options = decodeOptions(p, cp, m, cur, prop.Type)
	case quire.PropStatus:
		jsonbody.Unknown(p, cp, m, "options", "groups")
		prop.Options = decodeOptions(p, cp, m, cur, prop.Type)
		prop.Groups = decodeGroups(p, cp, m, prop.Options, cur)
	case quire.PropRelation:
		decodeRelation(p, cp, m, prop, cur)
	case quire.PropUniqueID:
		jsonbody.Unknown(p, cp, m, "prefix")
		if s, present, ok := nullableStr(p, cp, m, "prefix"); present && ok && s != "" {
			if checkPrefix(p, jsonbody.Join(cp, "prefix"), s) {
				prop.UniquePrefix = s
			}
		}
	default:
		jsonbody.Unknown(p, cp, m)
	}
}

// checkPrefix accepts 1–MaxPrefixLength characters without spaces or control characters:
// the prefix is written before a dash and the number ("TASK-12") and searched for as text.
func checkPrefix(p *quire.Problems, path, s string) bool {
	if length(s) > MaxPrefixLength {
		p.AddDetail(quire.Beyond(path, quire.ReasonTooLong, MaxPrefixLength, int64(length(s))), "The prefix is longer than "+strconv.Itoa(MaxPrefixLength)+" characters.")
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '\u00a0' || r == '\u2028' || r == '\u2029' {
			p.Add(path, quire.ReasonInvalidValue, "The prefix cannot hold spaces or control characters.")
			return false
		}
	}
	return true
}

// decodeRelation reads {database_id, type?, single_property?|dual_property?}. A relation is
// dual unless it says single_property, as in Notion; a dual relation gets the id its synced
// property on the other database must take (DualPropertyID), kept when the relation already
// pointed at that database as a dual one.
func decodeRelation(p *quire.Problems, cp string, m map[string]any, prop, cur *quire.Property) {
	jsonbody.Unknown(p, cp, m, "database_id", "type", "single_property", "dual_property")
	if id, ok := jsonbody.RequiredStr(p, cp, m, "database_id"); ok {
		if c, valid := quire.CanonicalID(id); valid {
			prop.RelationDatabaseID = c
		} else {
			p.Add(jsonbody.Join(cp, "database_id"), quire.ReasonInvalidValue, "database_id must be a UUID.")
		}
	}
	_, single := m["single_property"]
	_, dual := m["dual_property"]
	kind := "dual_property"
	switch t, ok := jsonbody.Str(p, cp, m, "type"); {
	case ok && t != "single_property" && t != "dual_property":
		p.Add(jsonbody.Join(cp, "type"), quire.ReasonInvalidValue, "A relation's type is single_property or dual_property.")
		return
	case ok && ((t == "single_property" && dual) || (t == "dual_property" && single)):
		p.Add(jsonbody.Join(cp, "type"), quire.ReasonInvalidValue, "type contradicts the relation's configuration.")
		return
	case ok:
		kind = t
	case single && dual:
		p.Add(cp, quire.ReasonInvalidValue, "A relation is single_property or dual_property, not both.")
		return
	case single:
		kind = "single_property"
	}
	if v, ok := m["single_property"]; ok {
		if sm, ok := jsonbody.Object(p, jsonbody.Join(cp, "single_property"), v); ok {
			jsonbody.Unknown(p, jsonbody.Join(cp, "single_property"), sm)
		}
	}
	if v, ok := m["dual_property"]; ok {
		dp := jsonbody.Join(cp, "dual_property")
		if dm, ok := jsonbody.Object(p, dp, v); ok {
			// What a client read back may come back: the synced property is the server's.
			jsonbody.Unknown(p, dp, dm, "synced_property_id", "synced_property_name")
			jsonbody.Str(p, dp, dm, "synced_property_id")
			jsonbody.Str(p, dp, dm, "synced_property_name")
		}
	}
	if kind == "dual_property" {
		if cur != nil && cur.Type == quire.PropRelation && cur.DualPropertyID != "" && cur.RelationDatabaseID == prop.RelationDatabaseID {
			prop.DualPropertyID = cur.DualPropertyID
		} else {
			prop.DualPropertyID = quire.NewID()
		}
	}
}
