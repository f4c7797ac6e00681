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

// checkPageSize enforces page_size 1–100 (contract §4) for every list, whatever the caller.
func checkPageSize(n int) error {
	if n < 1 || n > 100 {
		return quire.Invalid("page_size", quire.ReasonOutOfRange, "page_size must be between 1 and 100.")
	}
	return nil
}

// InvalidCursor is the answer for a malformed, altered or foreign start_cursor.
func InvalidCursor() error {
	return quire.Invalid("start_cursor", quire.ReasonInvalidValue,
		"start_cursor is not a cursor returned by this list; pass next_cursor unchanged.")
}
