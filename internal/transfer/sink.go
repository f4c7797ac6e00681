package transfer

import (
	"archive/zip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quire-dev/quire/internal/mindmap"
	"github.com/quire-dev/quire/internal/quire"
	"github.com/quire-dev/quire/internal/service"
)

// Sink is where an export writes: a folder or a zip file. Paths use forward slashes.
type Sink interface {
	write(name string, data []byte) error
	stream(name string, r io.Reader) error
	close() error
}

// NewSink opens out for an export: a zip file when out ends in .zip, else a folder, which
// must not exist yet or be empty (an export never mixes with other files).
func NewSink(out string) (Sink, error) {
	if strings.HasSuffix(strings.ToLower(out), ".zip") {
		f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		return &zipSink{f: f, z: zip.NewWriter(f)}, nil
	}
	if entries, err := os.ReadDir(out); err == nil && len(entries) > 0 {
		return nil, errors.New(out + " is not empty")
	}
	return dirSink(out), os.MkdirAll(out, 0o755)
}

type dirSink string

func (d dirSink) path(name string) (string, error) {
	p := filepath.Join(string(d), filepath.FromSlash(name))
	return p, os.MkdirAll(filepath.Dir(p), 0o755)
}

func (d dirSink) write(name string, data []byte) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

func (d dirSink) stream(name string, r io.Reader) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (d dirSink) close() error { return nil }

type zipSink struct {
	f *os.File
	z *zip.Writer
}

func (s *zipSink) write(name string, data []byte) error {
	w, err := s.z.Create(name)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func (s *zipSink) stream(name string, r io.Reader) error {
	w, err := s.z.Create(name)
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}

func (s *zipSink) close() error {
	if err := s.z.Close(); err != nil {
		s.f.Close()
		return err
	}
	return s.f.Close()
}

// MindMapEntry is a mind map's settings and tree with its node ids.
type MindMapEntry struct {
	Settings mindmap.Settings `json:"settings"`
	Root     *MindMapNode     `json:"root"`
}

// MindMapNode is one node of a mind map.
type MindMapNode struct {
	ID        string         `json:"id"`
	Text      string         `json:"text"`
	Color     string         `json:"color,omitempty"`
	Collapsed bool           `json:"collapsed,omitempty"`
	Children  []*MindMapNode `json:"children,omitempty"`
}

func mindMapEntry(mm *service.MindMap) *MindMapEntry {
	var conv func(n *quire.MindMapNode) *MindMapNode
	conv = func(n *quire.MindMapNode) *MindMapNode {
		out := &MindMapNode{ID: n.ID, Text: n.Text, Color: n.Color, Collapsed: n.Collapsed}
		for _, k := range mm.Tree.Kids[n.ID] {
			out.Children = append(out.Children, conv(k))
		}
		return out
	}
	return &MindMapEntry{Settings: mm.Settings, Root: conv(mm.Tree.Root)}
}

// newMindMap is the tree of an entry as the service restores it.
func (m *MindMapEntry) newMindMap() *mindmap.New {
	var conv func(n *MindMapNode) *mindmap.Node
	conv = func(n *MindMapNode) *mindmap.Node {
		out := &mindmap.Node{ID: n.ID, Text: n.Text, Color: n.Color, Collapsed: n.Collapsed}
		for _, k := range n.Children {
			out.Children = append(out.Children, conv(k))
		}
		return out
	}
	return &mindmap.New{Settings: m.Settings, Root: conv(m.Root)}
}

// plainValue is a property value of the API's read shape as one line of text.
func plainValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		if x {
			return "Yes"
		}
		return "No"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		var parts []string
		sep := ", "
		for _, it := range x {
			if m, ok := it.(map[string]any); ok && m["plain_text"] != nil {
				sep = "" // rich text: the items are one text
			}
			parts = append(parts, plainValue(it))
		}
		return strings.Join(parts, sep)
	case map[string]any:
		switch {
		case x["plain_text"] != nil:
			return plainValue(x["plain_text"])
		case x["name"] != nil:
			return plainValue(x["name"])
		case x["start"] != nil:
			if x["end"] != nil {
				return plainValue(x["start"]) + " → " + plainValue(x["end"])
			}
			return plainValue(x["start"])
		case x["number"] != nil:
			if x["prefix"] != nil {
				return plainValue(x["prefix"]) + "-" + plainValue(x["number"])
			}
			return plainValue(x["number"])
		case x["id"] != nil:
			return plainValue(x["id"])
		}
	}
	return ""
}
