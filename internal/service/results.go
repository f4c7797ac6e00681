package service

import "github.com/quire-dev/quire/internal/quire"

// Results is one page of a keyset-paginated list: its items in list order and the cursor that
// resumes after the last of them. (Named so it does not read like the page resource.)
type Results[T any] struct {
	Items      []T
	NextCursor string // "" on the last page
}

// paginate trims a page fetched with limit pageSize+1 and makes the cursor of its last item.
func paginate[T any](s *Service, list string, items []T, pageSize int, key func(T) any) (Results[T], error) {
	if len(items) <= pageSize {
		return Results[T]{Items: items}, nil
	}
	items = items[:pageSize]
	c, err := s.cursors.Encode(list, key(items[len(items)-1]))
	if err != nil {
		return Results[T]{}, err
	}
	return Results[T]{Items: items, NextCursor: c}, nil
}

// Page sizes of every list (contract §4).
const (
	minPageSize = 1
	maxPageSize = 100
)

const pageSizeMessage = "page_size must be between 1 and 100."

// checkPageSize enforces page_size 1–100 for every list, whatever the caller.
func checkPageSize(n int) error {
	if d, ok := pageSizeBeyond(int64(n)); ok {
		return quire.OverLimit(d, pageSizeMessage)
	}
	return nil
}

// pageSizeBeyond is the detail of a page_size out of range, with the bound it broke.
func pageSizeBeyond(n int64) (quire.Detail, bool) {
	switch {
	case n < minPageSize:
		return quire.Beyond("page_size", quire.ReasonOutOfRange, minPageSize, n), true
	case n > maxPageSize:
		return quire.Beyond("page_size", quire.ReasonOutOfRange, maxPageSize, n), true
	}
	return quire.Detail{}, false
}

// decodePageSize reads a page_size given in a body; on a problem it keeps def.
func decodePageSize(p *quire.Problems, v any, def int) int {
	n, ok := v.(float64)
	switch {
	case !ok:
		p.Add("page_size", quire.ReasonInvalidType, "page_size must be an integer.")
	case n != float64(int64(n)):
		p.Add("page_size", quire.ReasonOutOfRange, pageSizeMessage)
	default:
		if d, beyond := pageSizeBeyond(int64(n)); beyond {
			p.AddDetail(d, pageSizeMessage)
			return def
		}
		return int(n)
	}
	return def
}

// InvalidCursor is the answer for a malformed, altered or foreign start_cursor.
func InvalidCursor() error {
	return quire.Invalid("start_cursor", quire.ReasonInvalidValue,
		"start_cursor is not a cursor returned by this list; pass next_cursor unchanged.")
}
