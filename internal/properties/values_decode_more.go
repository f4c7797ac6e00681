package properties

import (
	"slices"
	"sort"

	"github.com/quire-dev/quire/internal/quire"
)

// decodeDate reads {start, end?, time_zone?}. Dates and date-times are kept as written (after
// checking them); a time_zone names the zone of date-times written without an offset.
func decodeDate(p *quire.Problems, vp string, body any) *Date {
	m, ok := object(p, vp, body)
	if !ok {
		return nil
	}
	before := len(p.Details)
	unknown(p, vp, m, "start", "end", "time_zone")
	start, ok := requiredStr(p, vp, m, "start")
	startMs, _, valid := quire.ParseDate(start)
	if ok && !valid {
		p.Add(join(vp, "start"), quire.ReasonInvalidValue, "start must be an ISO 8601 date or date-time.")
	}
	end, _, _ := nullableStr(p, vp, m, "end")
	if end != "" {
		if endMs, _, valid := quire.ParseDate(end); !valid {
			p.Add(join(vp, "end"), quire.ReasonInvalidValue, "end must be an ISO 8601 date or date-time.")
		} else if ok && endMs < startMs {
			p.Add(join(vp, "end"), quire.ReasonInvalidValue, "end is before start.")
		}
	}
	tz, _, _ := nullableStr(p, vp, m, "time_zone")
	if tz != "" {
		switch {
		case !validTimeZone(tz):
			p.Add(join(vp, "time_zone"), quire.ReasonInvalidValue, "time_zone must be an IANA time zone name.")
		case hasOffset(start) || hasOffset(end):
			p.Add(join(vp, "time_zone"), quire.ReasonInvalidValue, "A time_zone goes with date-times written without an offset.")
		}
	}
	if len(p.Details) > before {
		return nil
	}
	return &Date{Start: start, End: end, TimeZone: tz}
}

// decodeRefs reads people ([{object?: "user", id}]) or relation ([{id}]) as canonical ids
// without duplicates.
func decodeRefs(p *quire.Problems, vp, typ string, body any) []string {
	arr, ok := array(p, vp, body)
	if !ok {
		return nil
	}
	var ids []string
	for i, e := range arr {
		ip := index(vp, i)
		m, ok := object(p, ip, e)
		if !ok {
			continue
		}
		if typ == quire.PropPeople {
			unknown(p, ip, m, "object", "id")
			if o, ok := str(p, ip, m, "object"); ok && o != "user" {
				p.Add(join(ip, "object"), quire.ReasonInvalidValue, "A person's object is user.")
			}
		} else {
			unknown(p, ip, m, "id")
		}
		s, ok := requiredStr(p, ip, m, "id")
		if !ok {
			continue
		}
		id, valid := canonicalID(s)
		if !valid {
			p.Add(join(ip, "id"), quire.ReasonInvalidValue, "Not a valid id.")
			continue
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// decodeFiles reads [{name, type?, external: {url}} | {name?, type?, file_upload: {id}}]. The
// read shape of an upload ({"type":"file","file":{url}}) carries a signed URL, not the file,
// so it cannot be written back: a client sends the upload's id.
func decodeFiles(p *quire.Problems, vp string, body any) []File {
	arr, ok := array(p, vp, body)
	if !ok {
		return nil
	}
	var out []File
	for i, e := range arr {
		ip := index(vp, i)
		m, ok := object(p, ip, e)
		if !ok {
			continue
		}
		before := len(p.Details)
		f := File{}
		t, hasType := str(p, ip, m, "type")
		if _, present := m["type"]; present && !hasType {
			continue
		}
		if !hasType {
			if t = inferFileType(m); t == "" {
				p.Add(join(ip, "type"), quire.ReasonRequired, "A file is external or file_upload.")
				continue
			}
		}
		switch t {
		case "external", "file_upload":
		case "file":
			p.Add(join(ip, "type"), quire.ReasonInvalidValue, "Send an uploaded file as {\"type\":\"file_upload\",\"file_upload\":{\"id\":…}}.")
			continue
		default:
			p.Add(join(ip, "type"), quire.ReasonInvalidValue, "A file is external or file_upload.")
			continue
		}
		f.Type = t
		unknown(p, ip, m, "name", "type", t)
		name, hasName := str(p, ip, m, "name")
		switch {
		case !hasName && t == "external":
			if _, present := m["name"]; !present {
				p.Add(join(ip, "name"), quire.ReasonRequired, "An external file needs a name.")
			}
		case hasName && name == "":
			p.Add(join(ip, "name"), quire.ReasonInvalidValue, "A file's name cannot be empty.")
		case length(name) > MaxFileNameLength:
			p.Add(join(ip, "name"), quire.ReasonTooLong, "A file's name is at most 255 characters.")
		}
		f.Name = name
		bp := join(ip, t)
		bm, ok := m[t]
		if !ok {
			p.Add(bp, quire.ReasonRequired, "Field \""+t+"\" is required.")
			continue
		}
		om, ok := object(p, bp, bm)
		if !ok {
			continue
		}
		if t == "external" {
			unknown(p, bp, om, "url")
			if u, ok := requiredStr(p, bp, om, "url"); ok {
				f.URL = u
				if u == "" {
					p.Add(join(bp, "url"), quire.ReasonRequired, "A URL is required.")
				} else {
					decodeText(p, join(bp, "url"), quire.PropURL, u)
				}
			}
		} else {
			unknown(p, bp, om, "id")
			if s, ok := requiredStr(p, bp, om, "id"); ok {
				if id, valid := canonicalID(s); valid {
					f.UploadID = id
				} else {
					p.Add(join(bp, "id"), quire.ReasonInvalidValue, "Not a valid id.")
				}
			}
		}
		if len(p.Details) == before {
			out = append(out, f)
		}
	}
	return out
}

// inferFileType is the one source key of a file written without "type", "" when none or several.
func inferFileType(m map[string]any) string {
	found := ""
	for _, k := range []string{"external", "file_upload", "file"} {
		if _, ok := m[k]; ok {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
