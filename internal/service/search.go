package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/quire-dev/quire/internal/jsonbody"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/search"
)

// Limits of a search request.
const (
	MaxQueryLength = 1000 // characters
	MaxQueryTerms  = 20
)

// SearchRequest is a decoded POST /v2/search body.
type SearchRequest struct {
	Query       string
	Object      string // "", page, database, folder or mind_map
	SortBy      string // "", last_edited_time or created_time
	Ascending   bool
	StartCursor string
	PageSize    int
}

// DecodeSearch reads a search body (contract §8), reporting every problem with its path.
func DecodeSearch(body map[string]any) (SearchRequest, error) {
	var p quire.Problems
	out := SearchRequest{PageSize: defaultPageSize}
	for _, k := range jsonbody.SortedKeys(body) {
		if !SearchBody.Takes(&p, k) {
			continue
		}
		v := body[k]
		switch k {
		case "query":
			out.Query = decodeQuery(&p, v, false)
		case "filter":
			out.Object = decodeSearchFilter(&p, v)
		case "sort":
			out.SortBy, out.Ascending = decodeSearchSort(&p, v)
		case "start_cursor":
			out.StartCursor = nullableString(&p, k, v)
		case "page_size":
			out.PageSize = decodePageSize(&p, v, out.PageSize)
		}
	}
	if n := len(searchTerms(out.Query)); n > MaxQueryTerms {
		p.AddDetail(quire.Beyond("query", quire.ReasonTooMany, MaxQueryTerms, int64(n)), "query has at most 20 terms.")
	}
	return out, p.Err()
}

// decodeQuery reads a search's query, at most MaxQueryLength characters; required: a semantic
// search needs words to embed, a keyword search without any lists what the token reaches.
func decodeQuery(p *quire.Problems, v any, required bool) string {
	s, ok := v.(string)
	switch {
	case v == nil && !required:
	case !ok:
		p.Add("query", quire.ReasonInvalidType, "query must be a string.")
	case required && strings.TrimSpace(s) == "":
		p.Add("query", quire.ReasonRequired, "query must not be empty.")
	case utf8.RuneCountInString(s) > MaxQueryLength:
		p.AddDetail(quire.Beyond("query", quire.ReasonTooLong, MaxQueryLength, int64(utf8.RuneCountInString(s))), "query is at most 1000 characters.")
	default:
		return s
	}
	return ""
}

// SearchFilterShape is a search's filter, {"property":"object","value":KIND}: decodeSearchFilter
// takes these keys and values, and the document shows them.
var SearchFilterShape = jsonbody.Body{Noun: "filter", Fields: []jsonbody.Field{
	{Name: "property", Type: "string", Required: true, Enum: []string{"object"}},
	{Name: "value", Type: "string", Required: true, Enum: searchKinds},
}}

// searchKinds are the kinds of node a search filter names; searchTimestamps what a sort orders by.
var (
	searchKinds      = []string{"page", "database", "folder", "mind_map"}
	searchTimestamps = []string{"last_edited_time", "created_time"}
)

// SearchSortShape is a keyword search's sort (decodeSearchSort).
var SearchSortShape = jsonbody.Body{Noun: "sort", Fields: []jsonbody.Field{
	{Name: "timestamp", Type: "string", Enum: searchTimestamps, Default: "last_edited_time"},
	{Name: "direction", Type: "string", Enum: []string{"ascending", "descending"}, Default: "descending"},
}}

func decodeSearchFilter(p *quire.Problems, v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			p.Add("filter", quire.ReasonInvalidType, "filter must be an object.")
		}
		return ""
	}
	SearchFilterShape.UnknownAt(p, "filter", m)
	if fv, ok := m["property"]; ok && fv != "object" {
		p.Add("filter.property", quire.ReasonInvalidValue, `filter.property must be "object".`)
	}
	value, _ := m["value"].(string)
	if _, ok := m["value"]; ok && !slices.Contains(searchKinds, value) {
		p.Add("filter.value", quire.ReasonInvalidValue, "filter.value is one of page, database, folder, mind_map.")
		value = ""
	}
	if _, ok := m["property"]; !ok {
		p.Add("filter.property", quire.ReasonRequired, `filter.property is required ("object").`)
	}
	if _, ok := m["value"]; !ok {
		p.Add("filter.value", quire.ReasonRequired, "filter.value is required.")
	}
	return value
}

func decodeSearchSort(p *quire.Problems, v any) (by string, asc bool) {
	m, ok := v.(map[string]any)
	if !ok {
		if v != nil {
			p.Add("sort", quire.ReasonInvalidType, "sort must be an object.")
		}
		return "", false
	}
	SearchSortShape.UnknownAt(p, "sort", m)
	by = "last_edited_time"
	if sv, ok := m["timestamp"]; ok {
		if s, _ := sv.(string); slices.Contains(searchTimestamps, s) {
			by = s
		} else {
			p.Add("sort.timestamp", quire.ReasonInvalidValue, "sort.timestamp is last_edited_time or created_time.")
		}
	}
	switch sv, ok := m["direction"]; {
	case !ok || sv == "descending":
	case sv == "ascending":
		asc = true
	default:
		p.Add("sort.direction", quire.ReasonInvalidValue, "sort.direction is ascending or descending.")
	}
	return by, asc
}

// searchTerms splits a query into terms (search.Terms).
func searchTerms(q string) []string { return search.Terms(q) }

// Search answers POST /v2/search: the pages and databases the caller reaches whose title or
// content holds every term of the query, title matches first, then the latest edit; without a
// query, everything reachable, last edited first. A sort
// replaces the ranking.
func (s *Service) Search(ctx context.Context, p *quire.Principal, r SearchRequest) (Results[search.Result], error) {
	q := searchQuery(p, r)
	// A cursor belongs to one query: the same terms, filter and order.
	h := sha256.Sum256([]byte(strings.Join(q.Terms, "\x00") + "\x01" + r.Object + "\x01" + r.SortBy + "\x01" + boolString(r.Ascending)))
	list := "search:" + p.WorkspaceID() + ":" + hex.EncodeToString(h[:12])
	if r.StartCursor != "" {
		q.After = &search.Key{}
		if err := s.cursors.Decode(r.StartCursor, list, q.After); err != nil {
			return Results[search.Result]{}, InvalidCursor()
		}
	}
	res, read := searchedWithToken(ctx, p, r)
	var resume *search.Key
	if !read {
		var err error
		if res, resume, err = s.store.Search(ctx, q); err != nil {
			return Results[search.Result]{}, err
		}
	}
	nodes := make([]*quire.Node, len(res))
	for i, r := range res {
		nodes[i] = r.Node
	}
	if err := s.RenderRecords(ctx, nodes, nil); err != nil {
		return Results[search.Result]{}, err
	}
	if resume != nil {
		// The walk stopped at its bound (search.Keyword): fewer results than asked, and more
		// may follow the place it stopped.
		c, err := s.cursors.Encode(list, resume)
		if err != nil {
			return Results[search.Result]{}, err
		}
		return Results[search.Result]{Items: res, NextCursor: c}, nil
	}
	return paginate(s, list, res, r.PageSize, func(r search.Result) any { return r.Key })
}

// searchQuery is the search r asks of p's token, from its first page (a cursor is the
// caller's to decode).
func searchQuery(p *quire.Principal, r SearchRequest) search.Query {
	q := search.Query{Workspace: p.WorkspaceID(), Terms: searchTerms(r.Query), Limit: r.PageSize + 1}
	if !p.Token.WorkspaceScoped {
		q.ReachOf = p.Token.ID
	}
	q.Object, q.PageType = objectFilter(r.Object)
	switch {
	case r.SortBy == "created_time":
		q.Order = search.ByCreated
	case r.SortBy != "" || len(q.Terms) == 0:
		q.Order = search.ByEdited
	default:
		q.Order = search.ByRelevance
	}
	q.Ascending = r.Ascending
	return q
}

// objectFilter is the object and page type of a search filter's value (page, database, folder
// or mind_map; "" for any).
func objectFilter(object string) (obj, pageType string) {
	switch object {
	case "page":
		return quire.ObjectPage, quire.PageTypePage
	case "folder":
		return quire.ObjectPage, quire.PageTypeFolder
	case "mind_map":
		return quire.ObjectPage, quire.PageTypeMindMap
	case "database":
		return quire.ObjectDatabase, ""
	}
	return "", ""
}

func boolString(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
