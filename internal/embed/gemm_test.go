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

// TestGemmKernelsAgree compares each path's products (the Go loops, the AVX2 kernels, the
// AVX-512 ones) with a naive product of the unpacked matrix, on shapes the model uses (row
// counts past a kernel's six or twelve and a row block, k past a k block) and odd ones (panel
// counts the wide kernels do not divide), with and without accumulation (then with mostly zero
// inputs); gemmSparse with gemm: the same floats, since it leaves out zero products alone; and
// the AVX-512 path with the AVX2 one, bit for bit: each output's products are added in the same
// order with the same fused multiply-add.
func TestGemmKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = r.Float32()*2 - 1
		}
		return s
	}
	paths := kernelPaths(t)
	buf := newSparseBuf()
	shapes := []struct{ n, k, m int }{{1, 256, 768}, {7, 512, 1536}, {33, 1536, 512}, {3, 4, 64}, {101, 300, 32},
		{6, 1, 16}, {12, 256, 64}, {125, 600, 80}, {30, 17, 48}, {200, 520, 112}, {11, 256, 64}, {107, 512, 96},
		{100, 300, 656}, {2, 40, 128}}
	for _, c := range shapes {
		for _, acc := range []bool{false, true} {
			in, w, bias, base := fill(c.n*c.k), fill(c.k*c.m), fill(c.m), fill(c.n*c.m)
			if acc { // mostly zero, as after relu, with a row and a feature of zeros
				for i := range in {
					if r.IntN(10) > 0 || i < c.k || i%c.k == c.k-1 {
						in[i] = 0
					}
				}
			}
			want := make([]float64, c.n*c.m)
			for i := range c.n {
				for j := range c.m {
					sum := float64(bias[j])
					if acc {
						sum += float64(base[i*c.m+j])
					}
					for p := range c.k {
						sum += float64(in[i*c.k+p]) * float64(w[p*c.m+j])
					}
					want[i*c.m+j] = sum
				}
			}
			var avx2 []float32
			for _, path := range paths {
				path.use()
				dense, sparse := append([]float32(nil), base...), append([]float32(nil), base...)
				gemm(dense, in, c.n, pack(w, c.k, c.m), bias, acc)
				gemmSparse(&buf, sparse, in, c.n, pack(w, c.k, c.m), bias, acc)
				for i := range dense {
					if d := math.Abs(float64(dense[i]) - want[i]); d > 1e-4*(1+math.Abs(want[i]))*math.Sqrt(float64(c.k)) {
						t.Fatalf("%s: n=%d k=%d m=%d acc=%v: [%d] = %g, want %g", path.name, c.n, c.k, c.m, acc, i, dense[i], want[i])
					}
					if sparse[i] != dense[i] {
						t.Fatalf("%s: n=%d k=%d m=%d acc=%v: [%d] = %g sparse, %g dense", path.name, c.n, c.k, c.m, acc, i, sparse[i], dense[i])
					}
				}
				switch path.name {
				case "avx2":
					avx2 = dense
				case "avx512":
					for i := range dense {
						if dense[i] != avx2[i] {
							t.Fatalf("n=%d k=%d m=%d acc=%v: [%d] = %g with AVX-512, %g with AVX2", c.n, c.k, c.m, acc, i, dense[i], avx2[i])
						}
					}
				}
			}
		}
	}
}

// TestPackCols checks the transposed packing attention uses, padding included.
func TestPackCols(t *testing.T) {
	const rows, cols, stride = 3, 18, 5 // 18 source rows of 3 floats, 5 apart
	src := make([]float32, cols*stride)
	for i := range src {
		src[i] = float32(i + 1)
	}
	dst := make([]float32, rows*32)
	packCols(dst, src, rows, cols, stride)
	for c := range 32 {
		for r := range rows {
			want := float32(0)
			if c < cols {
				want = src[c*stride+r]
			}
			if got := dst[(c/lanes)*rows*lanes+r*lanes+c%lanes]; got != want {
				t.Fatalf("packed (row %d, column %d) = %g, want %g", r, c, got, want)
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
// goroutines as -cpu gives.
func BenchmarkEmbedThroughput(b *testing.B) {
	texts := make([]string, 256)
	short := []string{"How do I reset my password?", "Quarterly budget review notes", "Invoice is overdue again",
		"Team offsite agenda for March", "Which database do we use for billing?", "Roadmap: search speed"}
	for i := range texts {
		texts[i] = short[i%len(short)] + " " + longText(i%5)
	}
	throughput(b, texts, func([]string) int { return 64 })
}

// BenchmarkEmbedIssuePages embeds the chunks of 8 of issue 15's pages per op (issueChunks: 256
// chunks, 93 tokens on average) in the indexer's sub-batches (at most 32 chunks, and past the
// first 2 KiB of text), on as many goroutines as -cpu gives.
func BenchmarkEmbedIssuePages(b *testing.B) {
	throughput(b, issueChunks(8), func(texts []string) int {
		n, size := 0, 0
		for n < len(texts) && n < 32 && (n == 0 || size+len(texts[n]) <= 2048) {
			size += len(texts[n])
			n++
		}
		return n
	})
}

// throughput embeds texts once per op, split among as many goroutines as -cpu gives, each
// passing its share to Embed in calls of next(rest) texts. It reports chunks per second of wall
// time, and per second of the process's CPU time times the cores used: on a shared machine the
// latter is what the cores would do unshared.
func throughput(b *testing.B, texts []string, next func(rest []string) int) {
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
				for len(part) > 0 {
					n := min(next(part), len(part))
					if _, err := e.Embed(context.Background(), part[:n]); err != nil {
						b.Error(err)
					}
					part = part[n:]
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

// TestExpNeg compares expNeg with math.Exp over the softmax's range.
func TestExpNeg(t *testing.T) {
	for x := float32(0); x > -100; x -= 0.0137 {
		want := math.Exp(float64(x))
		got := float64(expNeg(x))
		if want < 1e-37 {
			if got > 1e-37 {
				t.Fatalf("expNeg(%g) = %g, want about 0", x, got)
			}
			continue
		}
		if d := math.Abs(got-want) / want; d > 3e-7 {
			t.Fatalf("expNeg(%g) = %g, want %g (relative error %g)", x, got, want, d)
		}
	}
}

// TestGatherAgrees checks the sparse product's gathers on every path against their definition:
// the features of a group's rows (six, or three for the AVX-512 kernel) not +0 in all of them,
// in order, each row's inputs at them; -0 counts as not zero (kept: its products add nothing).
// Widths past and short of gather3x16's sixteen a step.
func TestGatherAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, path := range kernelPaths(t) {
		path.use()
		buf := newSparseBuf()
		gathers := []struct {
			rows   int
			gather func(g int, in []float32, stride, kc int) int
		}{{6, buf.gather}}
		if hasAVX512 {
			gathers = append(gathers, struct {
				rows   int
				gather func(g int, in []float32, stride, kc int) int
			}{3, buf.gather3})
		}
		for _, gt := range gathers {
			for _, kc := range []int{kBlock, 16, 1, 17, 250, 15} {
				const stride = kBlock + 3
				in := make([]float32, 6*stride)
				for i := range in {
					switch r.IntN(20) {
					case 0, 1:
						in[i] = r.Float32()*2 - 1
					case 2:
						in[i] = float32(math.Copysign(0, -1))
					}
				}
				for g := range 2 {
					c := gt.gather(g, in, stride, kc)
					a, idx := buf.a[g*gt.rows*astride:], buf.idx[g*astride:]
					want := 0
					for p := range kc {
						keep := false
						for row := range gt.rows {
							keep = keep || math.Float32bits(in[row*stride+p]) != 0
						}
						if !keep {
							continue
						}
						if want >= c || idx[want] != int32(p) {
							t.Fatalf("%s, %d rows: kc=%d: feature %d kept at %d of %d, idx %v", path.name, gt.rows, kc, p, want, c, idx[:c])
						}
						for row := range gt.rows {
							if got := a[row*astride+want]; math.Float32bits(got) != math.Float32bits(in[row*stride+p]) {
								t.Fatalf("%s, %d rows: kc=%d: row %d feature %d = %g, want %g", path.name, gt.rows, kc, row, p, got, in[row*stride+p])
							}
						}
						want++
					}
					if c != want {
						t.Fatalf("%s, %d rows: kc=%d: %d features kept, want %d", path.name, gt.rows, kc, c, want)
					}
				}
			}
		}
	}
}
