package embed

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestGemmKernelsAgree compares the FMA panel path with the plain Go loops on shapes the model
// uses, with and without accumulation.
func TestGemmKernelsAgree(t *testing.T) {
	if !hasFMA {
		t.Skip("no AVX2/FMA on this machine")
	}
	r := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = r.Float32()*2 - 1
		}
		return s
	}
	for _, c := range []struct{ n, k, m int }{{1, 256, 768}, {7, 512, 1536}, {33, 1536, 512}, {3, 4, 64}} {
		for _, acc := range []bool{false, true} {
			in, w, bias := fill(c.n*c.k), fill(c.k*c.m), fill(c.m)
			base := fill(c.n * c.m)
			fast, slow := append([]float32(nil), base...), append([]float32(nil), base...)
			gemm(fast, in, c.n, c.k, w, c.m, bias, acc)
			hasFMA = false
			gemm(slow, in, c.n, c.k, w, c.m, bias, acc)
			hasFMA = true
			for i := range fast {
				if d := math.Abs(float64(fast[i] - slow[i])); d > 1e-3*(1+math.Abs(float64(slow[i]))) {
					t.Fatalf("n=%d k=%d m=%d acc=%v: [%d] = %g with FMA, %g in Go", c.n, c.k, c.m, acc, i, fast[i], slow[i])
				}
			}
		}
	}
}

// TestDotInt8 checks the int8 kernel against a plain loop, extremes included.
func TestDotInt8(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 16, 512, 1536} {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
		}
		if n == 512 {
			for i := range a {
				a[i], b[i] = -128, -128
			}
		}
		var want int32
		for i := range a {
			want += int32(a[i]) * int32(b[i])
		}
		if got := DotInt8(a, b); got != want {
			t.Errorf("DotInt8 over %d = %d, want %d", n, got, want)
		}
	}
}

// TestBatchMatchesAlone embeds texts of mixed lengths (empty, short, past MaxTokens) together and
// one by one: batching must not change a vector.
func TestBatchMatchesAlone(t *testing.T) {
	texts := []string{"", "How do I reset my password?", longText(300), "Invoice overdue", "", longText(90)}
	for range 20 { // more than one batch of batchTokens
		texts = append(texts, longText(40))
	}
	e := Builtin()
	all, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		one, err := e.Embed(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		for c := range one[0] {
			if math.Abs(float64(one[0][c]-all[i][c])) > 1e-5 {
				t.Fatalf("text %d: [%d] = %g batched, %g alone", i, c, all[i][c], one[0][c])
			}
		}
	}
}

func longText(words int) string {
	vocab := []string{"budget", "review", "hiring", "roadmap", "quarter", "team", "plan", "notes"}
	var b []byte
	for i := range words {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, vocab[(i*7+words)%len(vocab)]...)
	}
	return string(b)
}

// BenchmarkEmbedThroughput embeds 256 short blocks per op in batches of 64 texts, on as many
// goroutines as -cpu gives (the indexer runs one worker per core). It reports chunks per second
// of wall time, and per second of the process's CPU time times the cores used: on a shared
// machine the latter is what the cores would do unshared.
func BenchmarkEmbedThroughput(b *testing.B) {
	texts := make([]string, 256)
	short := []string{"How do I reset my password?", "Quarterly budget review notes", "Invoice is overdue again",
		"Team offsite agenda for March", "Which database do we use for billing?", "Roadmap: search speed"}
	for i := range texts {
		texts[i] = short[i%len(short)] + " " + longText(i%5)
	}
	e := Builtin()
	if _, err := e.Embed(context.Background(), texts[:1]); err != nil {
		b.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	b.ResetTimer()
	start := time.Now()
	cpu0, ok := processCPU()
	for b.Loop() {
		var wg sync.WaitGroup
		per := (len(texts) + procs - 1) / procs
		for w := 0; w < procs; w++ {
			part := texts[min(w*per, len(texts)):min((w+1)*per, len(texts))]
			wg.Go(func() {
				for i := 0; i < len(part); i += 64 {
					if _, err := e.Embed(context.Background(), part[i:min(i+64, len(part))]); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(b.N*len(texts))/time.Since(start).Seconds(), "chunks/s")
	if cpu1, _ := processCPU(); ok {
		b.ReportMetric(float64(b.N*len(texts))/(cpu1-cpu0).Seconds()*float64(procs), "chunks/cpu-s×cores")
	}
}
