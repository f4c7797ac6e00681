package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// writer sends a random mix of writes to objects that only it writes, so that the last
// acknowledged state of each is known, and one request at a time, so that at most one write
// of it is in flight when the server is killed.
type writer struct {
	n     int
	t     *testing.T
	rng   *rand.Rand
	c     *client
	round *roundState
	home  *object // parent of its databases and mind maps
	db    *object // where its new records go
	objs  []*object
	live  map[kind][]*object // not in trash, home left out
	acked int                // acknowledged writes of this round
	cut   bool               // this round ended with a write unanswered
}

// roundState is what the writers of a round share with the harness.
type roundState struct {
	killed atomic.Bool  // set just before the kill: a request without answer is expected after it
	acks   atomic.Int64 // writes acknowledged in the round, all writers together
}

func newWriter(t *testing.T, n int, seed, stream uint64, round *roundState) *writer {
	return &writer{n: n, t: t, rng: rand.New(rand.NewPCG(seed, stream)), round: round, live: map[kind][]*object{}}
}

// run writes until stop is closed or a request is cut off by the kill.
func (w *writer) run(stop <-chan struct{}) {
	w.acked, w.cut = 0, false
	for {
		select {
		case <-stop:
			return
		default:
		}
		err := w.step()
		switch {
		case err == nil:
			continue
		case errors.Is(err, errNoAnswer) && w.round.killed.Load():
			w.cut = true
		case errors.Is(err, errNoAnswer):
			w.t.Errorf("writer %d: the server stopped answering before the kill: %v", w.n, err)
		default:
			w.t.Errorf("writer %d: %v", w.n, err)
		}
		return
	}
}

func (w *writer) step() error {
	if w.home == nil {
		return w.createHome()
	}
	x := w.rng.IntN(100)
	switch {
	case x < 18:
	case x < 40:
		if p := w.pick(kindPage); p != nil && len(p.blocks.want) < 80 {
			return w.appendBlocks(p)
		}
	case x < 52:
		if p := w.pick(kindPage); p != nil {
			return w.retitle(p)
		}
	case x < 57:
		if o := w.pick([]kind{kindPage, kindRecord}[w.rng.IntN(2)]); o != nil {
			return w.trash(o)
		}
	case x < 67 && w.db == nil:
		return w.createDatabase()
	case x < 67:
		return w.createRecord()
	case x < 72 && w.db != nil:
		return w.createRecords()
	case x < 80:
		if r := w.pick(kindRecord); r != nil {
			return w.updateRecord(r)
		}
	case x < 85:
		return w.uploadFile()
	default:
		if m := w.pick(kindMindMap); m != nil && w.rng.IntN(10) > 0 {
			return w.editMindMap(m)
		}
		return w.createMindMap()
	}
	return w.createPage()
}

func (w *writer) pick(k kind) *object {
	if l := w.live[k]; len(l) > 0 {
		return l[w.rng.IntN(len(l))]
	}
	return nil
}

// made tracks a new object from its acknowledged answer.
func (w *writer) made(k kind, r *reply, etag string) *object {
	o := &object{kind: k, id: fmt.Sprint(r.obj["id"]), dirty: true}
	o.ack(r, etag)
	w.objs = append(w.objs, o)
	if w.home != nil {
		w.live[k] = append(w.live[k], o)
	}
	return o
}

// counted counts one acknowledged write request.
func (w *writer) counted() error {
	w.acked++
	w.round.acks.Add(1)
	return nil
}

func (w *writer) word() string { return fmt.Sprintf("qz%012x", w.rng.Uint64()&(1<<48-1)) }

func (w *writer) uuid() string {
	a, b := w.rng.Uint64(), w.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0xfff, b&(1<<48-1))
}

func rich(s string) []any { return []any{map[string]any{"text": map[string]any{"content": s}}} }

func paragraphs(texts []string) []any {
	out := make([]any, len(texts))
	for i, s := range texts {
		out[i] = map[string]any{"type": "paragraph", "paragraph": map[string]any{"rich_text": rich(s)}}
	}
	return out
}

func (w *writer) texts() []string {
	out := make([]string, 1+w.rng.IntN(3))
	for i := range out {
		out[i] = "Paragraph " + w.word() + " of a crash test"
	}
	return out
}

func (w *writer) createHome() error {
	r, err := w.c.call("POST", "/v2/pages", map[string]any{"properties": map[string]any{"title": rich(fmt.Sprintf("Writer %d %s", w.n, w.word()))}}, "")
	if err != nil {
		return err
	}
	w.home = w.made(kindPage, r, r.etag)
	return w.counted()
}

func (w *writer) createPage() error {
	title, texts := "Page "+w.word(), w.texts()
	r, err := w.c.call("POST", "/v2/pages", map[string]any{
		"properties": map[string]any{"title": rich(title)}, "children": paragraphs(texts)}, "")
	if err != nil {
		return err
	}
	if got := stateOf(kindPage, r.obj).title; got != title {
		return fmt.Errorf("POST /v2/pages answered title %q, sent %q", got, title)
	}
	p := w.made(kindPage, r, r.etag)
	p.blocks = &blockList{}
	for _, s := range texts {
		p.blocks.want = append(p.blocks.want, block{text: s})
	}
	return w.counted()
}

func (w *writer) appendBlocks(p *object) error {
	texts := w.texts()
	// The append changes the page's version whether or not its answer comes.
	p.blocks.pending, p.exact, p.dirty = texts, false, true
	r, err := w.c.call("PATCH", "/v2/blocks/"+p.id+"/children", map[string]any{"children": paragraphs(texts)}, "")
	if err != nil {
		return err
	}
	results, _ := r.obj["results"].([]any)
	if len(results) != len(texts) {
		return fmt.Errorf("append to %s answered %d blocks, sent %d", p.id, len(results), len(texts))
	}
	for i, res := range results {
		b, _ := res.(map[string]any)
		if got := plain(dig(b, "paragraph", "rich_text")); got != texts[i] {
			return fmt.Errorf("append to %s answered block %d %q, sent %q", p.id, i, got, texts[i])
		}
		p.blocks.want = append(p.blocks.want, block{full: b})
	}
	p.blocks.pending = nil
	return w.counted()
}

// refresh reads an object whose ETag is unknown, as a client would before an If-Match write.
func (w *writer) refresh(o *object) error {
	r, err := w.c.call("GET", o.path(), nil, "")
	if err != nil {
		return err
	}
	if got, want := stateOf(o.kind, r.obj), stateOf(o.kind, o.acked); got != want {
		return fmt.Errorf("GET %s reads %+v right after writes acknowledged %+v", o.path(), got, want)
	}
	o.ack(r, r.etag)
	return nil
}

func (w *writer) retitle(p *object) error {
	if !p.exact || p.etag == "" {
		if err := w.refresh(p); err != nil {
			return err
		}
	}
	title := "Page " + w.word()
	alt := stateOf(kindPage, p.acked)
	alt.title = title
	p.alt, p.dirty = &alt, true
	r, err := w.c.call("PATCH", p.path(), map[string]any{"properties": map[string]any{"title": rich(title)}}, p.etag)
	if err != nil {
		return err
	}
	p.ack(r, r.etag)
	if got := stateOf(kindPage, r.obj); got != alt {
		return fmt.Errorf("PATCH %s answered %+v, want %+v", p.path(), got, alt)
	}
	return w.counted()
}

func (w *writer) trash(o *object) error {
	alt := stateOf(o.kind, o.acked)
	alt.trash = true
	o.alt, o.dirty = &alt, true
	if o.db != nil {
		o.db.exact = false
	}
	r, err := w.c.call("DELETE", "/v2/pages/"+o.id, nil, "")
	if err != nil {
		return err
	}
	o.ack(r, r.etag)
	if !o.trashed {
		return fmt.Errorf("DELETE /v2/pages/%s answered in_trash false", o.id)
	}
	l := w.live[o.kind]
	w.live[o.kind] = slices.DeleteFunc(l, func(x *object) bool { return x == o })
	return w.counted()
}
