package dbquery

// Schema is what decoding needs of a database: its properties, found by name or by id.
type Schema struct {
	byName map[string]*Property
	byID   map[string]*Property
}

// Property is one schema entry. Options are set for select, multi_select and status.
type Property struct {
	ID      string
	Name    string
	Type    string
	Options []Option
}

// Option is one choice of a select, multi_select or status property.
type Option struct {
	ID   string
	Name string
}

// NewSchema indexes props by name and by id.
func NewSchema(props []Property) *Schema {
	s := &Schema{byName: make(map[string]*Property, len(props)), byID: make(map[string]*Property, len(props))}
	for i := range props {
		p := &props[i]
		s.byName[p.Name] = p
		s.byID[p.ID] = p
	}
	return s
}

// Lookup finds a property by name or, failing that, by id (filters and sorts accept both; a
// name wins over another property's equal id).
func (s *Schema) Lookup(nameOrID string) *Property {
	if s == nil {
		return nil
	}
	if p, ok := s.byName[nameOrID]; ok {
		return p
	}
	return s.byID[nameOrID]
}

// option resolves a filter's option value to an option id: a name first, then an id. ok is false
// when the name is shared by several options; id is "" (matching no record) when nothing fits.
func (p *Property) option(v string) (id string, ok bool) {
	found := 0
	for _, o := range p.Options {
		if o.Name == v {
			id = o.ID
			found++
		}
	}
	if found > 1 {
		return "", false
	}
	if found == 1 {
		return id, true
	}
	for _, o := range p.Options {
		if o.ID == v {
			return o.ID, true
		}
	}
	return "", true
}
