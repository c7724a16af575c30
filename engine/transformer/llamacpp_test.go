package transformer

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// The model of testdata/parting (README.md there): a random Q8_0 model
// deep enough that its logits part from llama.cpp's at the second position.
var (
	partingConfig = checkpoint.Config{Dim: 64, HiddenDim: 128, Layers: 6, Heads: 2, KVHeads: 2,
		VocabSize: 354, SeqLen: 16, SharedHead: true}
	partingTokens = []int{1, 300}
)

const partingSeed = 25

// partingModel is the model llama.cpp read: randmodel's, written as a GGUF
// file and read back.
func partingModel(t *testing.T) *checkpoint.Model {
	t.Helper()
	m, v, err := randmodel.BuildNamed(partingConfig, partingSeed, "Q8_0")
	if err != nil {
		t.Fatal(err)
	}
	randmodel.RandomGains(m, partingSeed)
	var buf bytes.Buffer
	if err := gguf.WriteLlama2c(&buf, m, v, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true}); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Read(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if m, err = f.Model(); err != nil {
		t.Fatal(err)
	}
	return m
}

// llamaTensors are the tensors of a harness dump (testdata/parting's
// README), by "NAME OP POS": "Qcur-1 ROPE 0" is layer 1's rotated query at
// position 0.
type llamaTensors map[string][]float32

func readLlamaDump(path string) (llamaTensors, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(data))
	out := llamaTensors{}
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF && line == "" {
			return out, nil
		}
		var name, op string
		var ne [4]int
		var pos int
		if _, err := fmt.Sscan(line, &name, &op, &ne[0], &ne[1], &ne[2], &ne[3], &pos); err != nil {
			return nil, fmt.Errorf("%s: bad header %q: %v", path, line, err)
		}
		x := make([]float32, ne[0]*ne[1]*ne[2]*ne[3])
		if err := binary.Read(r, binary.LittleEndian, x); err != nil {
			return nil, fmt.Errorf("%s: %s: %v", path, name, err)
		}
		out[fmt.Sprintf("%s %s %d", name, op, pos)] = x
	}
}

// passTensors are the tensors of one forward pass, llama.cpp's or this
// test's, by llama.cpp's names: get("attn_norm", l, pos).
type passTensors func(name string, layer, pos int) []float32

// layerOp is one operation of a layer, named by llama.cpp's graph: its
// output (name and ggml op), the input it quantizes if it is a quantized
// product ("" for other operations), and how Forward computes it from the
// tensors it reads.
type layerOp struct {
	name, op string
	input    string
	compute  func(t *Transformer, in passTensors, l, pos int, out []float32)
}

// layerInput is the residual stream a layer starts from.
func layerInput(in passTensors, l, pos int) []float32 {
	if l == 0 {
		return in("embd", -1, pos)
	}
	return in("l_out", l-1, pos)
}

func product(name string, w func(lm *checkpoint.LayerMatrices) *quant.Matrix, input, op string) layerOp {
	return layerOp{name: name, op: op, input: input,
		compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
			t.mul(out, in(input, l, pos), w(&t.Matrices.Layers[l]))
		}}
}

// layerOps are a layer's operations in the order Forward runs them.
var layerOps = []layerOp{
	{name: "attn_norm", op: "MUL", compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
		d := t.Config.Dim
		rmsnorm(out, layerInput(in, l, pos), t.W.RMSAtt[l*d:(l+1)*d], t.eps)
	}},
	rotated(product("Qcur", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.WQ }, "attn_norm", "ROPE")),
	rotated(product("Kcur", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.WK }, "attn_norm", "ROPE")),
	product("Vcur", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.WV }, "attn_norm", "MUL_MAT"),
	{name: "kqv_out", op: "CONT", compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
		// Keys and values of positions 0..pos as the pass computed them.
		a := newActivations(t.Config)
		t.reserve(a, pos)
		for p := 0; p <= pos; p++ {
			k, v := t.Cache.row(l, p)
			copy(k, in("Kcur", l, p))
			copy(v, in("Vcur", l, p))
		}
		t.attend(a, l, pos, in("Qcur", l, pos), out)
	}},
	product("attn_out", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.WO }, "kqv_out", "MUL_MAT"),
	{name: "ffn_inp", op: "ADD", compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
		x, o := layerInput(in, l, pos), in("attn_out", l, pos)
		for i := range out {
			out[i] = x[i] + o[i]
		}
	}},
	{name: "ffn_norm", op: "MUL", compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
		d := t.Config.Dim
		rmsnorm(out, in("ffn_inp", l, pos), t.W.RMSFFN[l*d:(l+1)*d], t.eps)
	}},
	product("ffn_gate", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.W1 }, "ffn_norm", "MUL_MAT"),
	product("ffn_up", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.W3 }, "ffn_norm", "MUL_MAT"),
	{name: "ffn_swiglu", op: "SWIGLU", compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
		copy(out, in("ffn_gate", l, pos))
		t.kern.swiglu(out, in("ffn_up", l, pos))
	}},
	product("ffn_out", func(lm *checkpoint.LayerMatrices) *quant.Matrix { return &lm.W2 }, "ffn_swiglu", "MUL_MAT"),
	{name: "l_out", op: "ADD", compute: func(t *Transformer, in passTensors, l, pos int, out []float32) {
		x, o := in("ffn_inp", l, pos), in("ffn_out", l, pos)
		for i := range out {
			out[i] = x[i] + o[i]
		}
	}},
}

// rotated is op followed by RoPE, as Forward rotates the query and key
// (llama.cpp names the product and its rotation alike).
func rotated(op layerOp) layerOp {
	mul := op.compute
	op.compute = func(t *Transformer, in passTensors, l, pos int, out []float32) {
		mul(t, in, l, pos, out)
		t.ropeAngles(pos)
		t.rope(out, t.rotaryOf(l))
	}
	return op
}

// relDiff is max|got − want| over max|want|.
func relDiff(got, want []float32) float64 {
	var d, top float64
	for i := range want {
		d = max(d, math.Abs(float64(got[i])-float64(want[i])))
		top = max(top, math.Abs(float64(want[i])))
	}
	return d / top
}

// q8Crossing describes the first value on which x and y, quantized to
// Q8_0 blocks as a product quantizes its input, get another integer or
// block scale, or returns "" when they quantize alike.
func q8Crossing(x, y []float32) string {
	var vx, vy quant.Vec
	qx, dx, _ := vx.Q8_0(x)
	qy, dy, _ := vy.Q8_0(y)
	for b := range dx {
		blockMax := func(v []float32) float32 {
			var m float32
			for _, f := range v[b*32 : (b+1)*32] {
				m = max(m, float32(math.Abs(float64(f))))
			}
			return m
		}
		mx, my := blockMax(x), blockMax(y)
		if dx[b] != dy[b] {
			return fmt.Sprintf("block %d's float16 scale is %.9g here and %.9g in llama.cpp (max|x| %.9g and %.9g, /127 around a float16 midpoint)",
				b, dx[b], dy[b], mx, my)
		}
		for j := b * 32; j < (b+1)*32; j++ {
			if qx[j] != qy[j] {
				return fmt.Sprintf("x[%d] becomes %d here and %d in llama.cpp: x·127/max|x| = %.9g and %.9g (x %.9g and %.9g, max|x| %.9g and %.9g)",
					j, qx[j], qy[j], x[j]*(127/mx), y[j]*(127/my), x[j], y[j], mx, my)
			}
		}
	}
	return ""
}

// TestOpsMatchLlamaCpp checks nexttoken against every tensor llama.cpp
// computed (testdata/parting: x86-64 with AVX-512, F32 KV cache) on a
// random Q8_0 model whose logits part from llama.cpp's by 0.016 at the
// second position, and shows why:
//
//   - every operation of every layer and position, fed llama.cpp's own
//     inputs, gives llama.cpp's output to float32 rounding: within
//     opTolerance of the tensor's largest magnitude (measured: 2.2e-7);
//   - the test's pass, made of the same operations fed their own outputs,
//     is Forward's, bit for bit;
//   - the first operation of that pass to part from llama.cpp by more than
//     rounding is a quantized product whose input agrees with llama.cpp's
//     to rounding, yet quantizes to another 8-bit integer or block scale:
//     a difference of an ulp or two (llama.cpp sums a product's blocks in
//     eight FMA lanes, its RMSNorm in double, its softmax and SiLU with an
//     expf of its own) that lands on a rounding boundary. One integer moves
//     the product by |w|·d, and the layers and positions after it carry
//     that on: here one of the attention's 64 outputs in layer 1, at
//     position 1, moves the logits by 0.016.
func TestOpsMatchLlamaCpp(t *testing.T) {
	const opTolerance = 1e-5 // of the largest |value|: rounding, far below a crossing's 1e-3
	dump, err := readLlamaDump(filepath.Join("testdata", "parting", "q8_0.dump"))
	if err != nil {
		t.Fatal(err)
	}
	m := partingModel(t)
	llama := func(name string, l, pos int) []float32 {
		key := name
		if l >= 0 {
			key = fmt.Sprintf("%s-%d", name, l)
		}
		op := map[string]string{"embd": "GET_ROWS", "result_norm": "MUL", "result_output": "MUL_MAT"}[name]
		for _, o := range layerOps {
			if o.name == name {
				op = o.op
			}
		}
		x, ok := dump[fmt.Sprintf("%s %s %d", key, op, pos)]
		if !ok {
			t.Fatalf("the dump has no %s %s at position %d", key, op, pos)
		}
		return x
	}

	// Each operation on llama.cpp's inputs.
	tr := New(m)
	worst := 0.0
	for pos := range partingTokens {
		for l := range partingConfig.Layers {
			for _, o := range layerOps {
				want := llama(o.name, l, pos)
				got := make([]float32, len(want))
				o.compute(tr, llama, l, pos, got)
				if d := relDiff(got, want); d > opTolerance {
					t.Errorf("position %d layer %d %s: %.3g of its largest value from llama.cpp's, given llama.cpp's inputs", pos, l, o.name, d)
				} else {
					worst = max(worst, d)
				}
			}
		}
	}
	t.Logf("every operation on llama.cpp's inputs: within %.3g of the largest value", worst)

	// The pass on its own outputs, against Forward and llama.cpp.
	own := map[string][]float32{}
	ours := func(name string, l, pos int) []float32 { return own[fmt.Sprintf("%s %d %d", name, l, pos)] }
	set := func(name string, l, pos int, x []float32) { own[fmt.Sprintf("%s %d %d", name, l, pos)] = x }
	fwd := New(m)
	parted := false
	part := func(pos, l int, name string, got []float32, o *layerOp) {
		d := relDiff(got, llama(name, l, pos))
		if parted || d <= opTolerance {
			return
		}
		parted = true
		t.Logf("position %d layer %d: %s parts from llama.cpp's by %.3g of its largest value", pos, l, name, d)
		if o == nil || o.input == "" {
			t.Errorf("the first to part is %s, not a quantized product", name)
			return
		}
		x, y := ours(o.input, l, pos), llama(o.input, l, pos)
		if d := relDiff(x, y); d > opTolerance {
			t.Errorf("%s's input %s already parts, by %.3g", name, o.input, d)
		}
		crossing := q8Crossing(x, y)
		if crossing == "" {
			t.Errorf("%s's input %s quantizes as llama.cpp's, yet the product parts", name, o.input)
		}
		t.Logf("its input %s agrees to rounding, but %s", o.input, crossing)
	}
	for pos, tok := range partingTokens {
		x := make([]float32, partingConfig.Dim)
		m.Weights.Quantized.TokenEmbedding.Row(tok, x)
		set("embd", -1, pos, x)
		part(pos, -1, "embd", x, nil)
		for l := range partingConfig.Layers {
			for i := range layerOps {
				o := &layerOps[i]
				out := make([]float32, len(llama(o.name, l, pos)))
				o.compute(tr, ours, l, pos, out)
				set(o.name, l, pos, out)
				part(pos, l, o.name, out, o)
			}
		}
		h := make([]float32, partingConfig.Dim)
		rmsnorm(h, ours("l_out", partingConfig.Layers-1, pos), m.Weights.RMSFinal, tr.eps)
		set("result_norm", -1, pos, h)
		part(pos, -1, "result_norm", h, nil)
		logits := make([]float32, partingConfig.VocabSize)
		tr.mul(logits, h, &m.Weights.Quantized.Classifier)
		part(pos, -1, "result_output", logits, &layerOp{name: "result_output", input: "result_norm"})

		forward, err := fwd.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		for i := range logits {
			if math.Float32bits(logits[i]) != math.Float32bits(forward[i]) {
				t.Fatalf("position %d: the test's pass gives logit %d = %g, Forward %g", pos, i, logits[i], forward[i])
			}
		}
		var sd, far float64
		want := llama("result_output", -1, pos)
		for i := range want {
			sd += float64(want[i]) * float64(want[i])
			far = max(far, math.Abs(float64(logits[i])-float64(want[i])))
		}
		t.Logf("position %d: logits within %.3g of llama.cpp's (their rms %.3g)", pos, far, math.Sqrt(sd/float64(len(want))))
	}
}
