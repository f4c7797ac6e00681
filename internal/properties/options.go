package properties

import (
	"strings"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// Notion's defaults for a status property created without options.
var (
	defaultStatusOptions = []quire.Option{
		{Name: "Not started", Color: "default"},
		{Name: "In progress", Color: "blue"},
		{Name: "Done", Color: "green"},
	}
	// defaultStatusGroups hold, by name, the default options above in the same order.
	defaultStatusGroups = []quire.StatusGroup{
		{Name: "To-do", Color: "gray"},
		{Name: "In progress", Color: "blue"},
		{Name: "Complete", Color: "green"},
	}
)

// decodeOptions reads the options of a select, multi_select or status configuration m at cp.
// Without "options" a property keeps the options it has (cur's, also across a type change
// between option types, so that values keep their meaning); a status property with none gets
// Notion's defaults. Given options become the list, in their order: on a PATCH each keeps the
// id (and unless given the colour) of the current option it names by id or, failing that, by
// name; the current options it leaves out are removed. On create ids are ignored.
func decodeOptions(p *quire.Problems, cp string, m map[string]any, cur *quire.Property, typ string) []quire.Option {
	var curOpts []quire.Option
	if cur != nil && hasOptions(cur.Type) {
		curOpts = cur.Options
	}
	op := jsonbody.Join(cp, "options")
	v, present := m["options"]
	if !present {
		if len(curOpts) == 0 && typ == quire.PropStatus {
			return defaultOptions()
		}
		return append([]quire.Option(nil), curOpts...)
	}
	arr, ok := jsonbody.Array(p, op, v, MaxArray)
	if !ok {
		return nil
	}
	if len(arr) == 0 && typ == quire.PropStatus {
		if len(curOpts) == 0 {
			return defaultOptions()
		}
		p.Add(op, quire.ReasonInvalidValue, "A status property needs at least one option.")
		return nil
	}
	out := make([]quire.Option, 0, len(arr))
	usedIDs := map[string]bool{}
	names := map[string]bool{}
	for i, item := range arr {
		ip := jsonbody.Index(op, i)
		om, ok := jsonbody.Object(p, ip, item)
		if !ok {
			continue
		}
		jsonbody.Unknown(p, ip, om, "id", "name", "color")
		var match *quire.Option
		id, hasID := jsonbody.Str(p, ip, om, "id")
		if hasID && cur != nil {
			if match = findOption(curOpts, id, ""); match == nil {
				p.Add(jsonbody.Join(ip, "id"), quire.ReasonInvalidValue, "The property has no option with this id.")
				continue
			}
		}
		name, hasName := jsonbody.Str(p, ip, om, "name")
		if _, present := om["name"]; !present && match == nil {
			p.Add(jsonbody.Join(ip, "name"), quire.ReasonRequired, "An option needs a name.")
			continue
		}
		if hasName {
			if !checkName(p, jsonbody.Join(ip, "name"), name, "An option") {
				continue
			}
			if strings.Contains(name, ",") {
				// Notion refuses them too: clients join option names with commas.
				p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "Option names cannot contain commas.")
				continue
			}
			if match == nil {
				match = findOption(curOpts, "", name)
			}
		}
		o := quire.Option{Name: name, Color: "default"}
		if match != nil {
			o = *match
			if hasName {
				o.Name = name
			}
		} else {
			o.ID = quire.NewID()
		}
		if c, ok := jsonbody.Str(p, ip, om, "color"); ok {
			if !colors[c] {
				p.Add(jsonbody.Join(ip, "color"), quire.ReasonInvalidValue, "Unknown option colour.")
				continue
			}
			o.Color = c
		}
		if usedIDs[o.ID] {
			p.Add(ip, quire.ReasonInvalidValue, "This option is listed twice.")
			continue
		}
		if names[o.Name] {
			p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "Another option has the same name.")
			continue
		}
		usedIDs[o.ID], names[o.Name] = true, true
		out = append(out, o)
	}
	return out
}

func defaultOptions() []quire.Option {
	out := append([]quire.Option(nil), defaultStatusOptions...)
	for i := range out {
		out[i].ID = quire.NewID()
	}
	return out
}

// findOption returns the option with id (when id is set) or else named name, or nil.
func findOption(opts []quire.Option, id, name string) *quire.Option {
	for i := range opts {
		if (id != "" && opts[i].ID == id) || (id == "" && opts[i].Name == name) {
			return &opts[i]
		}
	}
	return nil
}

// decodeGroups reads the groups of a status configuration. A status property always has the
// three groups To-do, In progress and Complete: a new one gets them, an existing one keeps its
// own. "groups" may recolour them and move options between them, each group named by id or
// name and its option_ids (option ids or names) replacing its list. An option left without a
// group joins the group whose default option has its name (so that "Done" is complete), else
// the first group.
func decodeGroups(p *quire.Problems, cp string, m map[string]any, opts []quire.Option, cur *quire.Property) []quire.StatusGroup {
	var groups []quire.StatusGroup
	fresh := cur == nil || cur.Type != quire.PropStatus || len(cur.Groups) == 0
	if fresh {
		groups = append(groups, defaultStatusGroups...)
		for i := range groups {
			groups[i].ID = quire.NewID()
		}
	} else {
		for _, g := range cur.Groups {
			g.OptionIDs = append([]string(nil), g.OptionIDs...)
			groups = append(groups, g)
		}
	}
	at := map[string]int{} // option id → its place in opts
	for i, o := range opts {
		at[o.ID] = i
	}
	assigned := map[string]int{} // option id → group index, from the request
	listed := make([]bool, len(groups))
	given := make([]bool, len(groups)) // the request replaced the group's option_ids
	if v, present := m["groups"]; present {
		gp := jsonbody.Join(cp, "groups")
		arr, ok := jsonbody.Array(p, gp, v, MaxArray)
		for i, item := range arr {
			if !ok {
				break
			}
			decodeGroup(p, jsonbody.Index(gp, i), item, groups, listed, given, opts, assigned)
		}
	}
	for i := range groups {
		if given[i] {
			continue
		}
		kept := groups[i].OptionIDs[:0]
		for _, id := range groups[i].OptionIDs {
			if _, exists := at[id]; !exists {
				continue
			}
			if g, moved := assigned[id]; moved && g != i {
				continue
			}
			kept = append(kept, id)
			assigned[id] = i
		}
		groups[i].OptionIDs = kept
	}
	for _, o := range opts {
		if _, ok := assigned[o.ID]; ok {
			continue
		}
		g := 0
		if fresh {
			for j, d := range defaultStatusOptions {
				if d.Name == o.Name {
					g = j
				}
			}
		}
		groups[g].OptionIDs = append(groups[g].OptionIDs, o.ID)
		assigned[o.ID] = g
	}
	// Options read in the schema's order within a group, whatever order they were moved in.
	for i := range groups {
		ids := groups[i].OptionIDs
		out := make([]string, 0, len(ids))
		for _, o := range opts {
			if assigned[o.ID] == i {
				out = append(out, o.ID)
			}
		}
		groups[i].OptionIDs = out
	}
	return groups
}

// decodeGroup applies one item of "groups" at ip.
func decodeGroup(p *quire.Problems, ip string, item any, groups []quire.StatusGroup, listed, given []bool, opts []quire.Option, assigned map[string]int) {
	gm, ok := jsonbody.Object(p, ip, item)
	if !ok {
		return
	}
	jsonbody.Unknown(p, ip, gm, "id", "name", "color", "option_ids")
	g := -1
	id, hasID := jsonbody.Str(p, ip, gm, "id")
	name, hasName := jsonbody.Str(p, ip, gm, "name")
	for i := range groups {
		if (hasID && groups[i].ID == id) || (!hasID && hasName && groups[i].Name == name) {
			g = i
		}
	}
	switch {
	case g < 0 && hasID:
		p.Add(jsonbody.Join(ip, "id"), quire.ReasonInvalidValue, "The property has no status group with this id.")
		return
	case g < 0 && hasName:
		p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "Status groups are To-do, In progress and Complete.")
		return
	case g < 0:
		_, idPresent := gm["id"]
		_, namePresent := gm["name"]
		if !idPresent && !namePresent {
			p.Add(jsonbody.Join(ip, "id"), quire.ReasonRequired, "Name a status group by id or name.")
		}
		return
	case hasID && hasName && groups[g].Name != name:
		p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "Status groups cannot be renamed.")
		return
	case listed[g]:
		p.Add(ip, quire.ReasonInvalidValue, "This status group is listed twice.")
		return
	}
	listed[g] = true
	if c, ok := jsonbody.Str(p, ip, gm, "color"); ok {
		if colors[c] {
			groups[g].Color = c
		} else {
			p.Add(jsonbody.Join(ip, "color"), quire.ReasonInvalidValue, "Unknown group colour.")
		}
	}
	v, present := gm["option_ids"]
	if !present {
		return // its options stay where they were
	}
	given[g] = true
	ap := jsonbody.Join(ip, "option_ids")
	arr, ok := jsonbody.Array(p, ap, v, MaxArray)
	if !ok {
		return
	}
	var ids []string
	for j, e := range arr {
		ep := jsonbody.Index(ap, j)
		s, ok := e.(string)
		if !ok {
			p.Add(ep, quire.ReasonInvalidType, "Expected an option id or name.")
			continue
		}
		o := findOption(opts, s, "")
		if o == nil {
			o = findOption(opts, "", s)
		}
		if o == nil {
			p.Add(ep, quire.ReasonInvalidValue, "The property has no option with this id or name.")
			continue
		}
		if _, dup := assigned[o.ID]; dup {
			p.Add(ep, quire.ReasonInvalidValue, "An option belongs to one status group.")
			continue
		}
		assigned[o.ID] = g
		ids = append(ids, o.ID)
	}
	groups[g].OptionIDs = ids
}
