package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"time"
)

// taskStatuses are the options of the Tasks database's Status property.
var taskStatuses = []string{"Backlog", "To do", "Doing", "Review", "Done"}

// taskTags are the options of its Tags property.
var taskTags = []string{"api", "docs", "search", "billing", "mobile", "infra"}

// content seeds a section page per topic, the content pages (blocks in all, in pages of
// blocksPerPage), empty append targets, a Tasks database with records, and mind maps.
func (s *seeder) content(ctx context.Context, out *seeded, blocks int, stderr io.Writer) error {
	sections := make([]string, len(topics))
	for i, t := range topics {
		id, err := s.id(ctx, "POST", "/v2/pages", map[string]any{
			"properties": map[string]any{"title": richText(t.name)}})
		if err != nil {
			return err
		}
		sections[i] = id
	}
	scratch, err := s.id(ctx, "POST", "/v2/pages", map[string]any{"properties": map[string]any{"title": richText("Scratch")}})
	if err != nil {
		return err
	}
	for i := range appendTargets {
		id, err := s.id(ctx, "POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": scratch},
			"properties": map[string]any{"title": richText(fmt.Sprintf("Scratch page %d", i+1))}})
		if err != nil {
			return err
		}
		out.Targets = append(out.Targets, id)
	}

	stop := s.progress(blocks, stderr)
	defer stop()
	npages := (blocks + blocksPerPage - 1) / blocksPerPage
	out.Pages = make([]string, npages)
	err = parallel(ctx, npages, func(ctx context.Context, p int) error {
		id, err := s.page(ctx, sections, p, min(blocksPerPage, blocks-p*blocksPerPage))
		out.Pages[p] = id
		return err
	})
	if err != nil {
		return err
	}
	out.Blocks, out.NPages = blocks, npages
	if out.Database, out.Records, err = s.tasks(ctx, sections[2], max(minRecords, blocks/blocksPerRecord)); err != nil {
		return err
	}
	out.MindMaps = max(1, blocks/blocksPerMap)
	return parallel(ctx, out.MindMaps, func(ctx context.Context, m int) error {
		return s.mindMap(ctx, sections[m%len(sections)], m)
	})
}

// page creates content page p with n blocks, appended blocksPerAppend at a time.
func (s *seeder) page(ctx context.Context, sections []string, p, n int) (string, error) {
	t := topics[p%len(topics)]
	r := rand.New(rand.NewPCG(uint64(p), 1))
	id, err := s.id(ctx, "POST", "/v2/pages", map[string]any{"parent": map[string]any{"page_id": sections[p%len(sections)]},
		"properties": map[string]any{"title": richText(fmt.Sprintf("%s notes %d", t.name, p+1))}})
	if err != nil {
		return "", err
	}
	for i := 0; i < n; i += blocksPerAppend {
		children := make([]any, 0, blocksPerAppend)
		for j := i; j < min(n, i+blocksPerAppend); j++ {
			children = append(children, block(r, t, j, p*blocksPerPage+j))
		}
		if err := s.call(ctx, "PATCH", "/v2/blocks/"+id+"/children", map[string]any{"children": children}, nil); err != nil {
			return "", err
		}
		s.done.Add(int64(len(children)))
	}
	return id, nil
}

// tasks creates the Tasks database and n records, 100 per mutation batch.
func (s *seeder) tasks(ctx context.Context, parent string, n int) (string, int, error) {
	opts := func(names []string) []any {
		var o []any
		for _, n := range names {
			o = append(o, map[string]any{"name": n})
		}
		return o
	}
	db, err := s.id(ctx, "POST", "/v2/databases", map[string]any{"parent": map[string]any{"page_id": parent},
		"title": richText("Tasks"),
		"properties": map[string]any{
			"Name": map[string]any{"title": map[string]any{}}, "Notes": map[string]any{"rich_text": map[string]any{}},
			"Status":   map[string]any{"select": map[string]any{"options": opts(taskStatuses)}},
			"Points":   map[string]any{"number": map[string]any{"format": "number"}},
			"Due":      map[string]any{"date": map[string]any{}},
			"Tags":     map[string]any{"multi_select": map[string]any{"options": opts(taskTags)}},
			"Estimate": map[string]any{"checkbox": map[string]any{}},
		}})
	if err != nil {
		return "", 0, err
	}
	batches := (n + 99) / 100
	err = parallel(ctx, batches, func(ctx context.Context, b int) error {
		r := rand.New(rand.NewPCG(uint64(b), 2))
		var ms []any
		for i := b * 100; i < min(n, (b+1)*100); i++ {
			t := topics[i%len(topics)]
			ms = append(ms, map[string]any{"op": "create", "properties": map[string]any{
				"Name":   map[string]any{"title": richText(fmt.Sprintf("Task %d: %s", i+1, capitalize(pick(r, t.nouns))))},
				"Notes":  map[string]any{"rich_text": richText(sentence(r, t, i))},
				"Status": map[string]any{"select": map[string]any{"name": pick(r, taskStatuses)}},
				"Points": map[string]any{"number": r.IntN(100)},
				"Due": map[string]any{"date": map[string]any{"start": time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).
					AddDate(0, 0, r.IntN(365)).Format("2006-01-02")}},
				"Tags":     map[string]any{"multi_select": tagPair(r)},
				"Estimate": map[string]any{"checkbox": r.IntN(2) == 0},
			}})
		}
		return s.call(ctx, "POST", "/v2/databases/"+db+"/mutations", map[string]any{"mutations": ms}, nil)
	})
	return db, n, err
}

// tagPair is one or two different tags: a multi_select value names an option once.
func tagPair(r *rand.Rand) []any {
	a, b := r.IntN(len(taskTags)), r.IntN(len(taskTags))
	out := []any{map[string]any{"name": taskTags[a]}}
	if b != a {
		out = append(out, map[string]any{"name": taskTags[b]})
	}
	return out
}

// mindMap creates mind map m: a root, 5 branches of 9 leaves (50 nodes).
func (s *seeder) mindMap(ctx context.Context, parent string, m int) error {
	t := topics[m%len(topics)]
	r := rand.New(rand.NewPCG(uint64(m), 3))
	var branches []any
	for b := range 5 {
		var leaves []any
		for range 9 {
			leaves = append(leaves, map[string]any{"text": capitalize(pick(r, t.nouns)) + " " + pick(r, verbs)})
		}
		branches = append(branches, map[string]any{"text": fmt.Sprintf("%s %d", capitalize(pick(r, t.nouns)), b+1), "children": leaves})
	}
	_, err := s.id(ctx, "POST", "/v2/mind-maps", map[string]any{"parent": map[string]any{"page_id": parent},
		"title": fmt.Sprintf("%s map %d", t.name, m+1), "root": map[string]any{"text": t.name, "children": branches}})
	return err
}

// progress prints the seeded blocks every 10 seconds until stop is called.
func (s *seeder) progress(total int, stderr io.Writer) (stop func()) {
	return s.progressOf(total, "blocks", stderr)
}

// progressOf prints the seeded things every 10 seconds until stop is called.
func (s *seeder) progressOf(total int, things string, stderr io.Writer) (stop func()) {
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				n := s.done.Load()
				fmt.Fprintf(stderr, "  seeded %d of %d %s (%.0f/s)\n", n, total, things, float64(n)/time.Since(start).Seconds())
			}
		}
	}()
	return func() { close(done) }
}
