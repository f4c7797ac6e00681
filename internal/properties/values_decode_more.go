package properties

import (
	"slices"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
)

// decodeDate reads {start, end?, time_zone?}. Dates and date-times are kept as written (after
// checking them); a time_zone names the zone of date-times written without an offset.
func decodeDate(p *quire.Problems, vp string, body any) *Date {
	m, ok := jsonbody.Object(p, vp, body)
	if !ok {
		return nil
	}
	before := len(p.Details)
	jsonbody.Unknown(p, vp, m, "start", "end", "time_zone")
	start, ok := jsonbody.RequiredStr(p, vp, m, "start")
	startMs, _, valid := quire.ParseDate(start)
	if ok && !valid {
		p.Add(jsonbody.Join(vp, "start"), quire.ReasonInvalidValue, "start must be an ISO 8601 date or date-time.")
	}
	end, _, _ := nullableStr(p, vp, m, "end")
	if end != "" {
		if endMs, _, valid := quire.ParseDate(end); !valid {
			p.Add(jsonbody.Join(vp, "end"), quire.ReasonInvalidValue, "end must be an ISO 8601 date or date-time.")
		} else if ok && endMs < startMs {
			p.Add(jsonbody.Join(vp, "end"), quire.ReasonInvalidValue, "end is before start.")
		}
	}
	tz, _, _ := nullableStr(p, vp, m, "time_zone")
	if tz != "" {
		switch {
		case !validTimeZone(tz):
			p.Add(jsonbody.Join(vp, "time_zone"), quire.ReasonInvalidValue, "time_zone must be an IANA time zone name.")
		case hasOffset(start) || hasOffset(end):
			p.Add(jsonbody.Join(vp, "time_zone"), quire.ReasonInvalidValue, "A time_zone goes with date-times written without an offset.")
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
	arr, ok := jsonbody.Array(p, vp, body, MaxArray)
	if !ok {
		return nil
	}
	var ids []string
	for i, e := range arr {
		ip := jsonbody.Index(vp, i)
		m, ok := jsonbody.Object(p, ip, e)
		if !ok {
			continue
		}
		if typ == quire.PropPeople {
			jsonbody.Unknown(p, ip, m, "object", "id")
			if o, ok := jsonbody.Str(p, ip, m, "object"); ok && o != "user" {
				p.Add(jsonbody.Join(ip, "object"), quire.ReasonInvalidValue, "A person's object is user.")
			}
		} else {
			jsonbody.Unknown(p, ip, m, "id")
		}
		s, ok := jsonbody.RequiredStr(p, ip, m, "id")
		if !ok {
			continue
		}
		id, valid := quire.CanonicalID(s)
		if !valid {
			p.Add(jsonbody.Join(ip, "id"), quire.ReasonInvalidValue, "Not a valid id.")
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
	arr, ok := jsonbody.Array(p, vp, body, MaxArray)
	if !ok {
		return nil
	}
	var out []File
	for i, e := range arr {
		ip := jsonbody.Index(vp, i)
		m, ok := jsonbody.Object(p, ip, e)
		if !ok {
			continue
		}
		before := len(p.Details)
		f := File{}
		t, hasType := jsonbody.Str(p, ip, m, "type")
		if _, present := m["type"]; present && !hasType {
			continue
		}
		if !hasType {
			if t = inferFileType(m); t == "" {
				p.Add(jsonbody.Join(ip, "type"), quire.ReasonRequired, "A file is external or file_upload.")
				continue
			}
		}
		switch t {
		case "external", "file_upload":
		case "file":
			p.Add(jsonbody.Join(ip, "type"), quire.ReasonInvalidValue, "Send an uploaded file as {\"type\":\"file_upload\",\"file_upload\":{\"id\":…}}.")
			continue
		default:
			p.Add(jsonbody.Join(ip, "type"), quire.ReasonInvalidValue, "A file is external or file_upload.")
			continue
		}
		f.Type = t
		jsonbody.Unknown(p, ip, m, "name", "type", t)
		name, hasName := jsonbody.Str(p, ip, m, "name")
		switch {
		case !hasName && t == "external":
			if _, present := m["name"]; !present {
				p.Add(jsonbody.Join(ip, "name"), quire.ReasonRequired, "An external file needs a name.")
			}
		case hasName && name == "":
			p.Add(jsonbody.Join(ip, "name"), quire.ReasonInvalidValue, "A file's name cannot be empty.")
		case length(name) > MaxFileNameLength:
			p.AddDetail(quire.Beyond(jsonbody.Join(ip, "name"), quire.ReasonTooLong, MaxFileNameLength, int64(length(name))), "A file's name is at most 255 characters.")
		}
		f.Name = name
		bp := jsonbody.Join(ip, t)
		bm, ok := m[t]
		if !ok {
			p.Add(bp, quire.ReasonRequired, "Field \""+t+"\" is required.")
			continue
		}
		om, ok := jsonbody.Object(p, bp, bm)
		if !ok {
			continue
		}
		if t == "external" {
			jsonbody.Unknown(p, bp, om, "url")
			if u, ok := jsonbody.RequiredStr(p, bp, om, "url"); ok {
				f.URL = u
				if u == "" {
					p.Add(jsonbody.Join(bp, "url"), quire.ReasonRequired, "A URL is required.")
				} else {
					decodeText(p, jsonbody.Join(bp, "url"), quire.PropURL, u)
				}
			}
		} else {
			jsonbody.Unknown(p, bp, om, "id")
			if s, ok := jsonbody.RequiredStr(p, bp, om, "id"); ok {
				if id, valid := quire.CanonicalID(s); valid {
					f.UploadID = id
				} else {
					p.Add(jsonbody.Join(bp, "id"), quire.ReasonInvalidValue, "Not a valid id.")
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
