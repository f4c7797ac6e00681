package markdown

import (
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/quire-dev/quire/internal/blocks"
)

func (c *converter) table(t *east.Table) []*blocks.Block {
	var rows [][]blocks.RichText
	width := 0
	hasHeader := false
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		var cells []blocks.RichText
		for cell := r.FirstChild(); cell != nil; cell = cell.NextSibling() {
			rt := fit(merge(c.inline(cell)))[0]
			if rt == nil {
				rt = blocks.RichText{}
			}
			cells = append(cells, rt)
		}
		if _, ok := r.(*east.TableHeader); ok {
			width = min(len(cells), blocks.MaxArray)
			for _, cell := range cells {
				if len(cell) > 0 {
					hasHeader = true
				}
			}
			if !hasHeader {
				continue // the empty header the exporter writes for a table without one
			}
		}
		rows = append(rows, cells)
	}
	if width == 0 {
		return nil
	}
	if len(rows) == 0 {
		rows = append(rows, nil) // a table has at least one row
	}
	tb := &blocks.Block{Type: "table", Content: blocks.Content{TableWidth: width, HasColumnHeader: hasHeader}}
	for _, cells := range rows {
		row := make([]blocks.RichText, width)
		for i := range row {
			if i < len(cells) {
				row[i] = cells[i]
			} else {
				row[i] = blocks.RichText{}
			}
		}
		tb.Children = append(tb.Children, &blocks.Block{Type: "table_row", Content: blocks.Content{Cells: row}})
	}
	return []*blocks.Block{tb}
}
