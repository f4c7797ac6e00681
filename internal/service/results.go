package service

// Results is one page of a keyset-paginated list: its items in list order and the cursor that
// resumes after the last of them. (Named so it does not read like the page resource.)
type Results[T any] struct {
	Items      []T
	NextCursor string // "" on the last page
}
