package client

import (
	"context"
	"iter"
)

// List is one page of a paginated answer.
type List[T any] struct {
	Object     string  `json:"object"`
	Results    []T     `json:"results"`
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// ListOptions pages through a list. The zero value starts at the beginning with the
// server's default page size (20).
type ListOptions struct {
	PageSize    int    // 1–100 items per request
	StartCursor string // resume after a NextCursor of an earlier page
}

// paginate yields every item of the pages fetch returns, following next_cursor until the
// list ends, the loop breaks, or a request fails (then the error is yielded once, last).
func paginate[T any](ctx context.Context, start string, fetch func(ctx context.Context, cursor string) (*List[T], error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := start
		for {
			page, err := fetch(ctx, cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range page.Results {
				if !yield(item, nil) {
					return
				}
			}
			if page.NextCursor == nil || *page.NextCursor == "" {
				return
			}
			cursor = *page.NextCursor
		}
	}
}
