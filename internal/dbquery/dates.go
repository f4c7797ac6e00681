package dbquery

import (
	"time"
)

const dayMs = 24 * 60 * 60 * 1000

// cmp is one comparison of a date column with a Unix ms value.
type cmp struct {
	op string // =, <, <=, >, >=
	ms int64
}

// dateRange gives the comparisons that select op with value v, relative to now for the relative
// operators: an instant compares exactly; a day (v.Day) covers its 24 hours. Days and weeks are
// UTC; a week starts on Monday; the past ranges include today and the next ranges start today.
func dateRange(op string, v Date, now time.Time) []cmp {
	today := now.UTC().Truncate(24 * time.Hour)
	span := func(lo, hi time.Time) []cmp { return []cmp{{">=", lo.UnixMilli()}, {"<", hi.UnixMilli()}} }
	switch op {
	case "equals":
		if v.Day {
			return []cmp{{">=", v.Ms}, {"<", v.Ms + dayMs}}
		}
		return []cmp{{"=", v.Ms}}
	case "before":
		return []cmp{{"<", v.Ms}}
	case "after":
		if v.Day {
			return []cmp{{">=", v.Ms + dayMs}}
		}
		return []cmp{{">", v.Ms}}
	case "on_or_before":
		if v.Day {
			return []cmp{{"<", v.Ms + dayMs}}
		}
		return []cmp{{"<=", v.Ms}}
	case "on_or_after":
		return []cmp{{">=", v.Ms}}
	case "past_week":
		return span(today.AddDate(0, 0, -7), today.AddDate(0, 0, 1))
	case "past_month":
		return span(today.AddDate(0, -1, 0), today.AddDate(0, 0, 1))
	case "past_year":
		return span(today.AddDate(-1, 0, 0), today.AddDate(0, 0, 1))
	case "next_week":
		return span(today, today.AddDate(0, 0, 8))
	case "next_month":
		return span(today, today.AddDate(0, 1, 1))
	case "next_year":
		return span(today, today.AddDate(1, 0, 1))
	case "this_week":
		monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
		return span(monday, monday.AddDate(0, 0, 7))
	}
	return nil
}
