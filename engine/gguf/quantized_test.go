package gguf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/transformer"
)

// The reference model of testdata/quantized (README.md there): a random
// checkpoint small enough for its files to be committed, whose rows are
// whole blocks of every format, fed refTokens.
var (
	refConfig = checkpoint.Config{Dim: 256, HiddenDim: 256, Layers: 2, Heads: 4, KVHeads: 1,
		VocabSize: 354, SeqLen: 16, SharedHead: true}
	refTokens = []int{1, 300, 40, 200, 5, 77, 353, 100, 12, 260}
)

const refSeed = 7

// refTensor is a line of the harness's dequant listing (testdata/DIR/NAME.dequant).
type refTensor struct {
	typ              string
	raw, dequantized uint64 // FNV-1a 64 of the tensor's bytes and of ggml's to_float of them
}

func readListing(t *testing.T, dir, name string) map[string]refTensor {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", dir, name+".dequant"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]refTensor{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		raw, err1 := strconv.ParseUint(f[2], 16, 64)
		deq, err2 := strconv.ParseUint(f[3], 16, 64)
		if len(f) != 4 || err1 != nil || err2 != nil {
			t.Fatalf("%s.dequant: bad line %q", name, sc.Text())
		}
		out[f[0]] = refTensor{strings.ToUpper(f[1]), raw, deq}
	}
	return out
}

func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func hashFloats(x []float32) uint64 {
	b := make([]byte, 4*len(x))
	for i, f := range x {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return hashBytes(b)
}

// ggmlQuantize quantizes x (a whole number of blocks) as llama-quantize
// does for Q8_0, Q4_0, Q5_0 and Q5_1 without an importance matrix:
// ggml-quants.c's quantize_row_q8_0_ref, quantize_row_q4_0_ref,
// quantize_row_q5_0_ref and quantize_row_q5_1_ref, in float32 with each
// operation rounded (ggml-base is built without FMA).
func ggmlQuantize(t quant.Type, x []float32) []byte {
	var out []byte
	for b := 0; b < len(x); b += 32 {
		xs := x[b : b+32]
		if t == quant.Q5_1 { // d = (max − min)/31 and the min, then Q5_0's bits
			lo, hi := slices.Min(xs), slices.Max(xs)
			d := (hi - lo) / 31
			var id float32
			if d != 0 {
				id = 1 / d
			}
			out = binary.LittleEndian.AppendUint16(out, quant.FloatToHalf(d))
			out = binary.LittleEndian.AppendUint16(out, quant.FloatToHalf(lo))
			var qh uint32
			var qs [16]byte
			for j := range 16 {
				x0 := byte(float32(float32(xs[j]-lo)*id) + 0.5)
				x1 := byte(float32(float32(xs[j+16]-lo)*id) + 0.5)
				qs[j] = x0&0xf | x1&0xf<<4
				qh |= uint32(x0&0x10>>4)<<j | uint32(x1&0x10>>4)<<(j+16)
			}
			out = binary.LittleEndian.AppendUint32(out, qh)
			out = append(out, qs[:]...)
			continue
		}
		var amax, maxv float32
		for _, v := range xs {
			if a := float32(math.Abs(float64(v))); amax < a {
				amax, maxv = a, v
			}
		}
		d := map[quant.Type]float32{quant.Q8_0: amax / 127, quant.Q4_0: maxv / -8, quant.Q5_0: maxv / -16}[t]
		var id float32
		if d != 0 {
			id = 1 / d
		}
		out = binary.LittleEndian.AppendUint16(out, quant.FloatToHalf(d))
		switch t {
		case quant.Q8_0:
			for _, v := range xs {
				out = append(out, byte(int8(math.Round(float64(v*id)))))
			}
		case quant.Q4_0:
			for j := range 16 {
				lo := min(15, int8(float32(xs[j]*id)+8.5))
				hi := min(15, int8(float32(xs[j+16]*id)+8.5))
				out = append(out, byte(lo)|byte(hi)<<4)
			}
		case quant.Q5_0: // the fifth bits first, in a little-endian uint32
			var qh uint32
			var qs [16]byte
			for j := range 16 {
				lo := byte(min(31, int8(float32(xs[j]*id)+16.5)))
				hi := byte(min(31, int8(float32(xs[j+16]*id)+16.5)))
				qs[j] = lo&0xf | hi&0xf<<4
				qh |= uint32(lo>>4)<<j | uint32(hi>>4)<<(j+16)
			}
			out = binary.LittleEndian.AppendUint32(out, qh)
			out = append(out, qs[:]...)
		}
	}
	return out
}

// refModel returns the reference model in format name: the F32 model made
// again from its seed; Q8_0, Q4_0 and Q5_0 (llama-quantize --pure) quantized
// from it here as llama-quantize does; Q4_K_M read from the committed
// llama-quantize output, whose K quantization is not ported. Each comes
// back through WriteLlama2c and Model, so the loader is what is tested.
func refModel(t *testing.T, name string) *checkpoint.Model {
	t.Helper()
	if strings.HasSuffix(name, "_k_m") { // llama-quantize's own K files
		f, closer, err := Open(filepath.Join("testdata", "quantized", name+".gguf"))
		if err != nil {
			t.Fatal(err)
		}
		defer closer.Close()
		m, err := f.Model()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if name == "iq4_nl" || name == "iq4_xs" || name == "q2_k" || name == "q3_k" { // random blocks, as cmd/randmodel -type writes them
		m, v, err := randmodel.BuildNamed(refConfig, refSeed, name)
		if err != nil {
			t.Fatal(err)
		}
		randmodel.RandomGains(m, refSeed)
		g, err := convert(t, m, v, Llama2cOptions{Type: F32, TiedOutput: true}).Model()
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	m, v, err := randmodel.Build(refConfig, refSeed)
	if err != nil {
		t.Fatal(err)
	}
	randmodel.RandomGains(m, refSeed)
	if name != "model" {
		quantizeAll(m, map[string]quant.Type{"q8_0": quant.Q8_0, "q4_0": quant.Q4_0, "q5_0": quant.Q5_0, "q5_1": quant.Q5_1}[name])
	}
	var buf bytes.Buffer
	if err := WriteLlama2c(&buf, m, v, Llama2cOptions{Type: F32, TiedOutput: true}); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = f.Model(); err != nil {
		t.Fatal(err)
	}
	return m
}

// quantizeAll makes every matrix of m, a float32 model with a shared
// classifier, typ, as llama-quantize does with a pure type; the gains,
// biases, RoPE factors and position embedding stay float32. A model
// written with its classifier (GPT-2's) keeps a quantized copy of it.
func quantizeAll(m *checkpoint.Model, typ quant.Type) {
	q := m.Matrices()
	for _, mat := range matrices(q) {
		if mat.F32 != nil { // not W1 of a model without a gate
			*mat = quant.Matrix{Type: typ, Rows: mat.Rows, Cols: mat.Cols, Q: ggmlQuantize(typ, mat.F32)}
		}
	}
	q.Classifier = q.TokenEmbedding
	w := m.Weights
	w.TokenEmbedding, w.Classifier, w.WQ, w.WK, w.WV, w.WO, w.W1, w.W2, w.W3 = nil, nil, nil, nil, nil, nil, nil, nil, nil
	w.Quantized = q
	m.Weights = w
}

// matrices lists the matrices of q by GGUF name, the classifier only when
// it is not the token embedding.
func matricesByName(q *checkpoint.Matrices) map[string]*quant.Matrix {
	out := map[string]*quant.Matrix{"token_embd.weight": &q.TokenEmbedding}
	for l := range q.Layers {
		lm := &q.Layers[l]
		for name, m := range map[string]*quant.Matrix{
			"attn_q": &lm.WQ, "attn_k": &lm.WK, "attn_v": &lm.WV, "attn_output": &lm.WO,
			"ffn_gate": &lm.W1, "ffn_down": &lm.W2, "ffn_up": &lm.W3,
		} {
			out[fmt.Sprintf("blk.%d.%s.weight", l, name)] = m
		}
	}
	return out
}

func matrices(q *checkpoint.Matrices) []*quant.Matrix {
	var out []*quant.Matrix
	for _, m := range matricesByName(q) {
		out = append(out, m)
	}
	return out
}

// TestMatchesLlamaCpp checks the reference model in F32, Q8_0, Q4_0, Q5_0,
// Q4_K_M (Q4_K with Q6_K) and Q5_K_M (Q5_K with Q6_K) against llama.cpp
// (testdata/quantized):
//
//   - every tensor has llama-quantize's format and bytes (for the files made
//     here) and, dequantized by Matrix.Row, ggml's to_float of them, bit
//     for bit (FNV-1a hashes);
//   - the Q4_K_M and Q5_K_M files' formats are the ones randmodel.Q4_K_M
//     and randmodel.Q5_K_M predict;
//   - at each of the positions of refTokens, every logit is llama.cpp's
//     within 1e-4 of the standard deviation of that position's logits.
//
// The tolerance: the quantized products sum the same integers as
// llama.cpp's (x quantized as its CPU backend does on x86-64), so what is
// left is float32 rounding in another order (its SIMD kernels, its RMSNorm
// summed in double): measured at 2.6e-6 (F32), 5.1e-7 (Q8_0), 4.9e-7
// (Q4_0) and 1.2e-6 (Q4_K_M) standard deviations. Any real difference
// is far larger: one activation rounded to the other integer moves a
// product by |w|·d, about 0.1 × 0.013 here, and multiplying the same weights by x in float32,
// without quantizing it, moves them by 0.07–0.11.
//
// That holds for this model, not for every one: on 7 of 30 Q8_0 models of
// this shape (randmodel.BuildNamed, seeds 1–30) one last-bit difference lands on a rounding boundary of x's
// quantization, and the logits part by 0.002–0.04 from there on, as
// llama.cpp's own build without SIMD parts from its AVX one on 5 (package
// quant's doc). TestOpsMatchLlamaCpp in package transformer checks a model
// that parts operation by operation instead.
func TestMatchesLlamaCpp(t *testing.T) {
	const tol = 1e-4 // of |Δlogit|, over the standard deviation of the logits
	for _, tc := range []struct{ name string }{{"model"}, {"q8_0"}, {"q4_0"}, {"q5_0"}, {"q5_1"}, {"q4_k_m"}, {"q5_k_m"}, {"iq4_nl"}, {"iq4_xs"}, {"q2_k"}, {"q3_k"}} {
		t.Run(tc.name, func(t *testing.T) {
			want := readListing(t, "quantized", tc.name)
			m := refModel(t, tc.name)
			q := m.Matrices()
			byName := matricesByName(q)
			gains := map[string][]float32{"output_norm.weight": m.Weights.RMSFinal}
			for l := range refConfig.Layers {
				d := refConfig.Dim
				gains[fmt.Sprintf("blk.%d.attn_norm.weight", l)] = m.Weights.RMSAtt[l*d : (l+1)*d]
				gains[fmt.Sprintf("blk.%d.ffn_norm.weight", l)] = m.Weights.RMSFFN[l*d : (l+1)*d]
			}
			if len(want) != len(byName)+len(gains) {
				t.Errorf("llama.cpp's file has %d tensors, the model %d", len(want), len(byName)+len(gains))
			}
			mixture := map[string]func(checkpoint.Config) func(string, int) quant.Type{"q4_k_m": randmodel.Q4_K_M, "q5_k_m": randmodel.Q5_K_M}[tc.name]
			for name, w := range want {
				if g, ok := gains[name]; ok {
					if h := hashFloats(g); h != w.dequantized {
						t.Errorf("%s: hash %016x, llama.cpp %016x", name, h, w.dequantized)
					}
					continue
				}
				mat := byName[name]
				if mat == nil {
					t.Errorf("llama.cpp's file has %s, the model does not", name)
					continue
				}
				if mat.Type.String() != w.typ {
					t.Errorf("%s is %s, llama.cpp's %s", name, mat.Type, w.typ)
				}
				if mixture != nil {
					if f := mixture(refConfig)(llamaName(name)); f != mat.Type {
						t.Errorf("%s: randmodel's %s says %s, llama-quantize wrote %s", name, tc.name, f, mat.Type)
					}
				}
				raw := mat.RowMajor()
				if mat.Type == quant.F32 {
					raw = nil
				} else if h := hashBytes(raw); h != w.raw {
					t.Errorf("%s: bytes hash %016x, llama-quantize's %016x", name, h, w.raw)
				}
				all := make([]float32, mat.Rows*mat.Cols)
				for i := range mat.Rows {
					mat.Row(i, all[i*mat.Cols:])
				}
				if h := hashFloats(all); h != w.dequantized {
					t.Errorf("%s: dequantized hash %016x, ggml's %016x", name, h, w.dequantized)
				}
			}

			data, err := os.ReadFile(filepath.Join("testdata", "quantized", tc.name+".logits"))
			if err != nil {
				t.Fatal(err)
			}
			worst, _ := compareLogits(t, m, floatsLE(data))
			t.Logf("%s: largest |Δlogit| / sd(logits) = %.3g", tc.name, worst)
			if worst > tol {
				t.Errorf("logits differ from llama.cpp's by up to %.3g standard deviations, more than %.3g", worst, tol)
			}
		})
	}
}

// compareLogits feeds m refTokens and compares its logits at each position
// with ref's (llama.cpp's, refConfig.VocabSize a position): the largest
// difference and the smallest margin of the greedy token over the next,
// both in standard deviations of the position's reference logits. A
// position whose greedy token is not ref's is an error.
func compareLogits(t *testing.T, m *checkpoint.Model, ref []float32) (worst, margin float64) {
	t.Helper()
	var greedy []int
	worst, margin, greedy = logitsDiff(refConfig.VocabSize, m, ref)
	n := refConfig.VocabSize
	for pos, g := range greedy {
		if top := argmax(ref[pos*n : (pos+1)*n]); g != top {
			t.Errorf("position %d: greedy token %d, llama.cpp's %d", pos, g, top)
		}
	}
	return worst, margin
}

// logitsDiff runs m on refTokens and returns the largest difference of
// its logits from ref's over their standard deviation, the smallest
// margin of ref's greedy token in standard deviations, and m's greedy
// tokens.
func logitsDiff(n int, m *checkpoint.Model, ref []float32) (worst, margin float64, greedy []int) {
	tr := transformer.New(m)
	margin = math.Inf(1)
	for pos, tok := range refTokens {
		got, err := tr.Forward(tok, pos)
		if err != nil {
			panic(err) // refTokens fit every reference model
		}
		want := ref[pos*n : (pos+1)*n]
		sd := stddev(want)
		worst = max(worst, maxDiff(got, want)/sd)
		greedy = append(greedy, argmax(got))
		margin = min(margin, lead(want)/sd)
	}
	return worst, margin, greedy
}

// stddev is x's standard deviation.
func stddev(x []float32) float64 {
	var mean, sq float64
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		sq += (float64(v) - mean) * (float64(v) - mean)
	}
	return math.Sqrt(sq / float64(len(x)))
}

// maxDiff is the largest |a[i] − b[i]|.
func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// lead is by how much x's largest value leads the next.
func lead(x []float32) float64 {
	top := argmax(x)
	rest := slices.Clone(x)
	rest[top] = float32(math.Inf(-1))
	return float64(x[top] - rest[argmax(rest)])
}

// llamaName turns a GGUF tensor name into randmodel's name and layer.
func llamaName(name string) (string, int) {
	if name == "token_embd.weight" {
		return "token_embedding", -1
	}
	var l int
	var s string
	fmt.Sscanf(strings.ReplaceAll(name, ".", " "), "blk %d %s", &l, &s)
	return map[string]string{"attn_q": "wq", "attn_k": "wk", "attn_v": "wv", "attn_output": "wo",
		"ffn_gate": "w1", "ffn_down": "w2", "ffn_up": "w3"}[s], l
}

func floatsLE(b []byte) []float32 {
	x := make([]float32, len(b)/4)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return x
}
