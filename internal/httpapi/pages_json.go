package httpapi

import "strconv"

// appendJSON writes the page as huma's JSON format writes pageObject, splicing the stored icon,
// cover and properties (compact JSON our own encoders wrote, which encoding/json would only
// have scanned again to compact). Through encoding/json the page answer's encoding was 7% of a
// page GET's CPU, most of it reflection over the fields and the rescans.
func (p pageObject) appendJSON(dst []byte) ([]byte, bool) {
	dst = append(dst, `{"object":`...)
	dst = appendString(dst, p.Object)
	dst = append(dst, `,"id":`...)
	dst = appendString(dst, p.ID)
	dst = append(dst, `,"page_type":`...)
	dst = appendString(dst, p.PageType)
	dst = append(dst, `,"created_time":`...)
	dst = appendString(dst, p.CreatedTime)
	dst = append(dst, `,"last_edited_time":`...)
	dst = appendString(dst, p.LastEditedTime)
	dst = append(dst, `,"created_by":`...)
	dst = p.CreatedBy.appendJSON(dst)
	dst = append(dst, `,"last_edited_by":`...)
	dst = p.LastEditedBy.appendJSON(dst)
	dst = append(dst, `,"parent":`...)
	dst = p.Parent.appendJSON(dst)
	dst = append(dst, `,"in_trash":`...)
	dst = strconv.AppendBool(dst, p.InTrash)
	dst = append(dst, `,"icon":`...)
	dst = append(dst, rawOr(p.Icon, "null")...)
	dst = append(dst, `,"cover":`...)
	dst = append(dst, rawOr(p.Cover, "null")...)
	dst = append(dst, `,"properties":`...)
	dst = append(dst, rawOr(p.Properties, "{}")...)
	dst = append(dst, `,"url":`...)
	dst = appendString(dst, p.URL)
	return append(dst, '}'), true
}

// appendJSON writes the reference as encoding/json writes userRef.
func (u userRef) appendJSON(dst []byte) []byte {
	dst = append(dst, `{"object":`...)
	dst = appendString(dst, u.Object)
	dst = append(dst, `,"id":`...)
	dst = appendString(dst, u.ID)
	return append(dst, '}')
}
