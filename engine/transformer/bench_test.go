package transformer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/internal/matvec"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
)

// randomModel is a model of configuration c with random weights, which
// cost the same to multiply as trained ones.
func randomModel(tb testing.TB, c checkpoint.Config) *checkpoint.Model {
	m, _, err := randmodel.Build(c, 15)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

type benchModel struct {
	name  string
	model *checkpoint.Model
	opts  Options
}

// benchModels are the models benchmarked with kernels k, each with the
// default arithmetic and, named -runc, with run.c's; then the quantized
// ones (quantBenchModels).
func benchModels(b *testing.B, k Kernels) []benchModel {
	var all []benchModel
	for _, m := range []benchModel{
		{name: "toy", model: loadModel(b, "../../web/models/toy.bin")},
		{name: "stories260K", model: loadModel(b, stories260K)},
		{name: "stories15M-shape", model: randomModel(b, randmodel.Stories15M)},
	} {
		all = append(all, m, benchModel{m.name + "-runc", m.model, Options{RunC: true}})
	}
	all = append(all, quantBenchModels(b)...)
	for i := range all {
		all[i].opts.Kernels = k
	}
	return all
}

// BenchmarkDecode generates a whole context, seq_len positions, one decode
// step at a time (greedy, each output fed back as the next input), the way
// run.c's generate loop does, with the platform's fastest kernels
// (benchKernels: under js the WebAssembly SIMD kernels).
func BenchmarkDecode(b *testing.B) { benchmarkDecode(b, benchKernels(b)) }

// benchmarkDecode is BenchmarkDecode with kernels k.
func benchmarkDecode(b *testing.B, k Kernels) {
	for _, bm := range benchModels(b, k) {
		b.Run(bm.name, func(b *testing.B) {
			tr := NewWith(bm.model, bm.opts)
			n := bm.model.Config.SeqLen
			b.ReportAllocs()
			for b.Loop() {
				decodeGreedy(b, tr, n)
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "tok/s")
		})
	}
}

// BenchmarkPrefill feeds a prompt of 64 tokens from position 0 through
// Prefill, whose positions go through the layers together from a model
// size on (batchMinBytes), and, named /forward, one position at a time
// through Forward: the same bits.
func BenchmarkPrefill(b *testing.B) {
	for _, bm := range benchModels(b, benchKernels(b)) {
		tr := NewWith(bm.model, bm.opts)
		prompt := make([]int, min(64, bm.model.Config.SeqLen))
		for i := range prompt {
			prompt[i] = (i * 7) % bm.model.Config.VocabSize
		}
		forward := func(prompt []int, start int) ([]float32, error) {
			var logits []float32
			var err error
			for i, tok := range prompt {
				if logits, err = tr.Forward(tok, start+i); err != nil {
					return nil, err
				}
			}
			return logits, nil
		}
		for _, way := range []struct {
			name    string
			prefill func([]int, int) ([]float32, error)
		}{{"", tr.Prefill}, {"/forward", forward}} {
			b.Run(bm.name+way.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := way.prefill(prompt, 0); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(prompt)*b.N)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}

// BenchmarkMatmul compares package matvec's kernel (natively AVX2 with FMA)
// and gonum's SGEMV with the unrolled Go loop, at the shapes of
// stories260K and stories15M, and with run.c's order (matmulRunC).
// Run it natively and under js/wasm (see matmul.go for the choice it
// supports).
func BenchmarkMatmul(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	kernels := []struct {
		name string
		f    func(out, x, w []float32, n, d int)
	}{{"matvec", matvec.Mul}, {"gonum", sgemv}, {"unrolled", matmulUnrolled}, {"runc", matmulRunC}}
	for _, shape := range [][2]int{{64, 64}, {64, 172}, {64, 512}, {288, 288}, {288, 768}, {288, 32000}} {
		n, d := shape[0], shape[1]
		w, x, out := randomVector(rng, n*d), randomVector(rng, n), make([]float32, d)
		for _, k := range kernels {
			b.Run(fmt.Sprintf("%s/%dx%d", k.name, n, d), func(b *testing.B) {
				for b.Loop() {
					k.f(out, x, w, n, d)
				}
			})
		}
	}
}

// sgemv is gonum's SGEMV, for comparison.
func sgemv(out, x, w []float32, n, d int) {
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: d, Cols: n, Stride: n, Data: w[:d*n]},
		blas32.Vector{N: n, Inc: 1, Data: x},
		0, blas32.Vector{N: d, Inc: 1, Data: out})
}

// BenchmarkRecompute generates n tokens of stories260K from position 0
// (greedy), with the cache (Forward per step) and without it (Recompute of
// the whole sequence per step), reporting the multiply-adds of the n steps
// (MultiplyAdds, RecomputeMultiplyAdds): linear against quadratic.
func BenchmarkRecompute(b *testing.B) {
	m := loadModel(b, stories260K)
	opts := Options{Kernels: benchKernels(b)}
	for _, n := range []int{64, 256, 512} {
		var cachedMA, recomputedMA int
		for pos := range n {
			cachedMA += MultiplyAdds(m.Config, pos)
			recomputedMA += RecomputeMultiplyAdds(m.Config, pos)
		}
		b.Run(fmt.Sprintf("cached/%d", n), func(b *testing.B) {
			tr := NewWith(m, opts)
			for b.Loop() {
				decodeGreedy(b, tr, n)
			}
			b.ReportMetric(float64(cachedMA), "madds/op")
		})
		b.Run(fmt.Sprintf("recomputed/%d", n), func(b *testing.B) {
			tr := NewWith(m, opts)
			tokens := make([]int, 0, n)
			for b.Loop() {
				tokens = append(tokens[:0], 1)
				for pos := range n {
					logits, err := tr.Recompute(tokens)
					if err != nil {
						b.Fatal(err)
					}
					if pos+1 < n {
						tokens = append(tokens, sampler.Argmax(logits))
					}
				}
			}
			b.ReportMetric(float64(recomputedMA), "madds/op")
		})
	}
}

// decodeGreedy feeds n positions from BOS (id 1), each the argmax of the
// logits before it, as run.c's generate loop does at temperature 0.
func decodeGreedy(b *testing.B, tr *Transformer, n int) {
	tok := 1
	for pos := range n {
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			b.Fatal(err)
		}
		tok = sampler.Argmax(logits)
	}
}
