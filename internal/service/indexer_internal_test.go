package service

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quire-dev/quire/internal/busy"
	"github.com/quire-dev/quire/internal/embed"
)

// callSizes is the built-in embedder, remembering how many texts each call took.
type callSizes struct {
	embed.Embedder
	calls []int
}

func (c *callSizes) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls = append(c.calls, len(texts))
	return c.Embedder.Embed(ctx, texts)
}

// TestIndexerEmbedsInSubBatches: the indexer's embedding calls take at most subChunks texts and
// subBytes bytes (a longer text alone), so that it can step aside for requests between them,
// and the vectors come back in order, each the text's own.
func TestIndexerEmbedsInSubBatches(t *testing.T) {
	short, long := "Cats purr.", strings.Repeat("x", subBytes/2+1)
	for _, tc := range []struct {
		name  string
		texts []string
		want  []int
	}{
		{"one", []string{short}, []int{1}},
		{"count bound", slices.Repeat([]string{short}, 2*subChunks+1), []int{subChunks, subChunks, 1}},
		{"byte bound", slices.Repeat([]string{long}, 3), []int{1, 1, 1}},
		{"a text over the bound goes alone", []string{short, strings.Repeat("y", 3*subBytes), short}, []int{1, 1, 1}},
		{"bytes fill up", append(slices.Repeat([]string{strings.Repeat("z", subBytes/4)}, 4), short), []int{4, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &callSizes{Embedder: embed.Builtin()}
			ix := &Indexer{svc: &Service{embedder: rec}}
			got, err := ix.embed(context.Background(), tc.texts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.calls, tc.want) {
				t.Fatalf("calls of %v texts, want %v", rec.calls, tc.want)
			}
			if len(got) != len(tc.texts) {
				t.Fatalf("%d vectors for %d texts", len(got), len(tc.texts))
			}
			for i, text := range tc.texts {
				alone, err := embed.Builtin().Embed(context.Background(), []string{text})
				if err != nil {
					t.Fatal(err)
				}
				if c := embed.Cosine(got[i], alone[0]); c < 0.9999 {
					t.Fatalf("vector %d: cosine %v with the text's own", i, c)
				}
			}
		})
	}
}

// overlap is the built-in embedder, remembering the most calls it saw at once. Each call waits
// (up to two seconds) for a second one to begin, so calls made side by side always meet and
// calls made one after the other never do, however loaded the machine.
type overlap struct {
	embed.Embedder
	mu           sync.Mutex
	active, most int
	met          chan struct{}
}

func (o *overlap) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	o.mu.Lock()
	o.active++
	o.most = max(o.most, o.active)
	if o.active == 2 {
		close(o.met)
		o.met = make(chan struct{})
	}
	met := o.met
	o.mu.Unlock()
	select {
	case <-met:
	case <-time.After(2 * time.Second):
	}
	defer func() { o.mu.Lock(); o.active--; o.mu.Unlock() }()
	return o.Embedder.Embed(ctx, texts)
}

// TestIndexerSpareCoresOnlyWhenIdle: with a spare sub-batch allowed, the indexer embeds two
// sub-batches side by side while the gate is quiet, and one at a time while a request is in
// flight or has just ended; the
// vectors stay in order either way.
func TestIndexerSpareCoresOnlyWhenIdle(t *testing.T) {
	texts := slices.Repeat([]string{"Cats purr.", "Dogs bark loudly."}, subChunks) // two sub-batches
	for _, tc := range []struct {
		name            string
		inFlight, ended bool // a request in flight, or one that has ended
		want            int
	}{
		{"idle", false, false, 2},
		{"a request in flight", true, false, 1},
		// A client sending requests one after another: the gate is empty between two, but not
		// quiet (the test's quiet spell is an hour, so no timing is involved).
		{"a request just ended", false, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := busy.New()
			if tc.inFlight {
				defer g.Begin()()
			}
			if tc.ended {
				g.Begin()()
			}
			rec := &overlap{Embedder: embed.Builtin(), met: make(chan struct{})}
			ix := (&Indexer{svc: &Service{embedder: rec}, quiet: time.Hour}).Yield(g, time.Millisecond)
			ix.spare = 1
			got, err := ix.embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if rec.most != tc.want {
				t.Fatalf("at most %d embedding calls at once, want %d", rec.most, tc.want)
			}
			alone, err := embed.Builtin().Embed(context.Background(), texts[:2])
			if err != nil {
				t.Fatal(err)
			}
			for i := range texts {
				if c := embed.Cosine(got[i], alone[i%2]); c < 0.9999 {
					t.Fatalf("vector %d: cosine %v with the text's own", i, c)
				}
			}
		})
	}
}

// holdFirst is the built-in embedder whose call for the first text of a run holds until a
// third call has started, and records whether it had to give up waiting.
type holdFirst struct {
	embed.Embedder
	first  string
	mu     sync.Mutex
	calls  int
	third  chan struct{}
	gaveUp bool
}

func (h *holdFirst) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.mu.Lock()
	h.calls++
	if h.calls == 3 {
		close(h.third)
	}
	h.mu.Unlock()
	if texts[0] == h.first {
		select {
		case <-h.third:
		case <-time.After(5 * time.Second): // only a deadlock guard: rounds never start a third call here
			h.mu.Lock()
			h.gaveUp = true
			h.mu.Unlock()
		}
	}
	return h.Embedder.Embed(ctx, texts)
}

// TestIndexerSpareTakesTheNextSubBatchAtOnce: a goroutine done with its sub-batch takes the next
// one while the other's is still running, instead of waiting for it at the end of a round.
func TestIndexerSpareTakesTheNextSubBatchAtOnce(t *testing.T) {
	texts := slices.Repeat([]string{"Cats purr.", "Dogs bark loudly."}, subChunks*3/2) // three sub-batches
	texts[0] = "The first sub-batch is slow."
	rec := &holdFirst{Embedder: embed.Builtin(), first: texts[0], third: make(chan struct{})}
	ix := (&Indexer{svc: &Service{embedder: rec}}).Yield(busy.New(), time.Millisecond)
	ix.spare = 1
	got, err := ix.embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if rec.calls != 3 || rec.gaveUp {
		t.Fatalf("%d calls, gave up waiting for the third: %v; want the third started beside the first", rec.calls, rec.gaveUp)
	}
	for i, v := range got {
		if len(v) != embed.Builtin().Dim() {
			t.Fatalf("vector %d has %d floats", i, len(v))
		}
	}
}

// started is an embedder that closes ch at its first call.
type started struct {
	embed.Embedder
	once sync.Once
	ch   chan struct{}
}

func (s *started) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	s.once.Do(func() { close(s.ch) })
	return s.Embedder.Embed(ctx, texts)
}

// TestIndexerSpareReturnsAfterQuiet: a spare goroutine held off by a request takes a sub-batch
// once the gate has been quiet again, within the same call (the first sub-batch's call waits
// for a second one, so the test needs no timing beyond the 10 ms quiet spell).
func TestIndexerSpareReturnsAfterQuiet(t *testing.T) {
	texts := slices.Repeat([]string{"Cats purr.", "Dogs bark loudly."}, subChunks) // two sub-batches
	g := busy.New()
	end := g.Begin()
	rec := &overlap{Embedder: embed.Builtin(), met: make(chan struct{})}
	first := &started{Embedder: rec, ch: make(chan struct{})}
	ix := (&Indexer{svc: &Service{embedder: first}, quiet: 10 * time.Millisecond}).Yield(g, time.Millisecond)
	ix.spare = 1
	go func() { <-first.ch; end() }() // the request ends while the first sub-batch runs
	if _, err := ix.embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if rec.most != 2 {
		t.Fatalf("at most %d embedding calls at once, want 2: the spare back once the request ended", rec.most)
	}
}

// TestIndexerWorkersLeaveNoCoreIdle: the spare sub-batches make the workers fill the cores.
func TestIndexerWorkersLeaveNoCoreIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct{ procs, workers, spare int }{{2, 1, 1}, {8, 4, 1}, {3, 1, 2}, {1, 1, 0}, {2, 4, 0}} {
		runtime.GOMAXPROCS(tc.procs)
		if got := (&Indexer{}).Workers(tc.workers).spare; got != tc.spare {
			t.Errorf("%d cores, %d workers: %d spare, want %d", tc.procs, tc.workers, got, tc.spare)
		}
	}
}

// stepper is the built-in embedder after 20 ms of stand-in work and a pause, as a step of the
// built-in model's pass pauses.
type stepper struct{ embed.Embedder }

func (s stepper) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(20 * time.Millisecond)
	embed.Pause(ctx)
	return s.Embedder.Embed(ctx, texts)
}

// TestIndexerPacesItsEmbedding: while a request is in flight the indexer's embedding calls
// carry a pause that rests busy.Rest times as long as the work before it (at least 3 × 20 ms
// here; only a lower bound is checked, which load cannot break), and none without requests.
func TestIndexerPacesItsEmbedding(t *testing.T) {
	if _, err := embed.Builtin().Embed(context.Background(), []string{"x"}); err != nil { // load the weights untimed
		t.Fatal(err)
	}
	g := busy.New()
	end := g.Begin()
	ix := (&Indexer{svc: &Service{embedder: stepper{embed.Builtin()}}, quiet: time.Hour}).Yield(g, time.Millisecond)
	start := time.Now()
	if _, err := ix.embed(context.Background(), []string{"Cats purr."}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < (1+busy.Rest)*20*time.Millisecond {
		t.Fatalf("an embedding call beside a request took %v, want at least %v (paced)", d, (1+busy.Rest)*20*time.Millisecond)
	}
	end()
	idle := (&Indexer{svc: &Service{embedder: stepper{embed.Builtin()}}, quiet: time.Hour}).Yield(busy.New(), time.Millisecond)
	start = time.Now()
	if _, err := idle.embed(context.Background(), []string{"Cats purr."}); err != nil {
		t.Fatal(err)
	}
	t.Logf("paced call: at least %v; unpaced: %v", (1+busy.Rest)*20*time.Millisecond, time.Since(start))
}
