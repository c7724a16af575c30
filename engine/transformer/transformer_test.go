package transformer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/internal/matvec"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
)

func loadModel(t testing.TB, path string) *checkpoint.Model {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkpoint.Read(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const stories260K = "../../web/models/stories260K.bin"

// reference is a naive float64 forward pass over the whole sequence, written
// from the equations rather than from Forward: no cache tricks, no shared
// buffers, angles and norms in float64. It returns the logits at every position.
func reference(m *checkpoint.Model, tokens []int) [][]float64 {
	c, w := m.Config, m.Weights
	hs, kvDim := c.HeadSize(), c.KVDim()
	mul := func(W []float32, x []float64, rows int) []float64 {
		y := make([]float64, rows)
		for i := range y {
			for j, v := range x {
				y[i] += float64(W[i*len(x)+j]) * v
			}
		}
		return y
	}
	norm := func(x []float64, g []float32) []float64 {
		var ss float64
		for _, v := range x {
			ss += v * v
		}
		r := 1 / math.Sqrt(ss/float64(len(x))+float64(c.Eps()))
		y := make([]float64, len(x))
		for i := range x {
			y[i] = float64(g[i]) * x[i] * r
		}
		return y
	}
	rotate := func(v []float64, pos int) {
		for i := 0; i < len(v); i += 2 {
			theta := float64(pos) / math.Pow(float64(c.Base()), float64(i%hs)/float64(hs))
			s, co := math.Sincos(theta)
			v[i], v[i+1] = v[i]*co-v[i+1]*s, v[i]*s+v[i+1]*co
		}
	}

	n := len(tokens)
	x := make([][]float64, n)
	for p, tok := range tokens {
		x[p] = make([]float64, c.Dim)
		for i := range x[p] {
			x[p][i] = float64(w.TokenEmbedding[tok*c.Dim+i])
		}
	}
	for l := range c.Layers {
		keys := make([][]float64, n)
		values := make([][]float64, n)
		queries := make([][]float64, n)
		for p := range n {
			xb := norm(x[p], w.RMSAtt[l*c.Dim:])
			queries[p] = mul(w.WQ[l*c.Dim*c.Dim:], xb, c.Dim)
			keys[p] = mul(w.WK[l*kvDim*c.Dim:], xb, kvDim)
			values[p] = mul(w.WV[l*kvDim*c.Dim:], xb, kvDim)
			rotate(queries[p], p)
			rotate(keys[p], p)
		}
		for p := range n {
			out := make([]float64, c.Dim)
			for h := range c.Heads {
				kv := h / (c.Heads / c.KVHeads) * hs
				scores := make([]float64, p+1)
				for t := range scores {
					for i := range hs {
						scores[t] += queries[p][h*hs+i] * keys[t][kv+i]
					}
					scores[t] /= math.Sqrt(float64(hs))
				}
				var sum float64
				for t := range scores {
					scores[t] = math.Exp(scores[t])
					sum += scores[t]
				}
				for t := range scores {
					for i := range hs {
						out[h*hs+i] += scores[t] / sum * values[t][kv+i]
					}
				}
			}
			o := mul(w.WO[l*c.Dim*c.Dim:], out, c.Dim)
			for i := range o {
				x[p][i] += o[i]
			}
			xb := norm(x[p], w.RMSFFN[l*c.Dim:])
			gate := mul(w.W1[l*c.HiddenDim*c.Dim:], xb, c.HiddenDim)
			up := mul(w.W3[l*c.HiddenDim*c.Dim:], xb, c.HiddenDim)
			for i := range gate {
				gate[i] = gate[i] / (1 + math.Exp(-gate[i])) * up[i]
			}
			down := mul(w.W2[l*c.Dim*c.HiddenDim:], gate, c.Dim)
			for i := range down {
				x[p][i] += down[i]
			}
		}
	}
	logits := make([][]float64, n)
	for p := range n {
		logits[p] = mul(w.Classifier, norm(x[p], w.RMSFinal), c.VocabSize)
	}
	return logits
}

// TestForwardMatchesReference runs 32 greedy steps of stories260K from BOS and
// compares every step's logits with the float64 reference pass.
func TestForwardMatchesReference(t *testing.T) {
	t.Run("run.c", func(t *testing.T) { matchReference(t, loadModel(t, stories260K)) })
	// Another RoPE base and epsilon (as a GGUF file may set) reach the maths.
	t.Run("base and eps", func(t *testing.T) {
		m := loadModel(t, stories260K)
		m.Config.RoPEBase, m.Config.NormEps = 500, 1e-3
		matchReference(t, m)
		a, _ := New(loadModel(t, stories260K)).Prefill([]int{1, 300, 400}, 0)
		b, _ := New(m).Prefill([]int{1, 300, 400}, 0)
		if slices.Equal(a, b) {
			t.Error("the base and epsilon change nothing")
		}
	})
}

func matchReference(t *testing.T, m *checkpoint.Model) {
	tr := New(m)
	tokens := []int{1}
	var got [][]float32
	for pos := range 32 {
		logits, err := tr.Forward(tokens[pos], pos)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, append([]float32(nil), logits...))
		tokens = append(tokens, sampler.Argmax(logits))
	}
	want := reference(m, tokens[:32])
	worst := 0.0
	for pos := range got {
		for i := range got[pos] {
			d := math.Abs(float64(got[pos][i]) - want[pos][i])
			worst = max(worst, d)
			if d > 1e-4 {
				t.Fatalf("pos %d token %d: logit %v, reference %v", pos, i, got[pos][i], want[pos][i])
			}
		}
	}
	t.Logf("largest difference from the float64 reference over 32 steps: %.3g", worst)
}

func TestForwardRejectsBadInput(t *testing.T) {
	tr := New(loadModel(t, stories260K))
	if _, err := tr.Forward(1, 0); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		token, pos int
	}{
		{"negative token", -1, 1},
		{"token past vocabulary", 512, 1},
		{"position skips ahead", 1, 2},
		{"negative position", 1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tr.Forward(tc.token, tc.pos); err == nil {
				t.Errorf("Forward(%d, %d) succeeded", tc.token, tc.pos)
			}
		})
	}
}

// TestRewind checks that feeding a different token at an earlier position
// gives the same logits as a fresh run: stale cache rows are never read.
func TestRewind(t *testing.T) {
	m := loadModel(t, stories260K)
	a, b := New(m), New(m)
	for pos, tok := range []int{1, 300, 301, 302} {
		if _, err := a.Forward(tok, pos); err != nil {
			t.Fatal(err)
		}
	}
	var want, got []float32
	for pos, tok := range []int{1, 300, 400} {
		w, err := b.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		want = w
	}
	got, err := a.Forward(400, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("logit %d after rewind = %v, fresh run %v", i, got[i], want[i])
		}
	}
	if a.Cache.Len != 3 {
		t.Errorf("cache length after rewind = %d, want 3", a.Cache.Len)
	}
}

func TestKVCache(t *testing.T) {
	m := loadModel(t, stories260K)
	tr := New(m)
	c := m.Config
	for pos, tok := range []int{1, 300, 301} {
		if _, err := tr.Forward(tok, pos); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := tr.Cache.Len, 3; got != want {
		t.Errorf("Len = %d, want %d", got, want)
	}
	if got, want := tr.Cache.Bytes(), 2*c.Layers*3*c.KVDim()*4; got != want {
		t.Errorf("Bytes = %d, want %d", got, want)
	}
	if got := tr.Cache.Capacity(); got != c.SeqLen {
		t.Errorf("Capacity = %d, want %d", got, c.SeqLen)
	}
	if got := len(tr.Cache.Key(4, 2, 3)); got != c.HeadSize() {
		t.Errorf("key length %d, want %d", got, c.HeadSize())
	}
	for l := range c.Layers {
		for h := range c.Heads {
			a := tr.Latest().Attention(l, h)
			var sum float64
			for _, v := range a {
				sum += float64(v)
			}
			if len(a) != 3 || math.Abs(sum-1) > 1e-5 {
				t.Errorf("layer %d head %d: attention %v sums to %v", l, h, a, sum)
			}
		}
	}
}

func TestMatmulKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range [][2]int{{1, 1}, {3, 5}, {64, 172}, {7, 4}} {
		n, d := shape[0], shape[1]
		w, x := randomVector(rng, n*d), randomVector(rng, n)
		a, b := make([]float32, d), make([]float32, d)
		matvec.Mul(a, x, w, n, d)
		matmulUnrolled(b, x, w, n, d)
		for i := range a {
			var want float64
			for j := range n {
				want += float64(w[i*n+j]) * float64(x[j])
			}
			if math.Abs(float64(a[i])-want) > 1e-5 || math.Abs(float64(b[i])-want) > 1e-5 {
				t.Errorf("%dx%d row %d: matvec %v, unrolled %v, want %v", n, d, i, a[i], b[i], want)
			}
		}
	}
}

// TestMatmulRunCOrder checks that matmulRunC sums each row as run.c's loop
// does, term after term in float32, bit for bit, for every row count
// modulo its four-row blocks.
func TestMatmulRunCOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][2]int{{1, 1}, {3, 5}, {64, 172}, {7, 6}, {288, 7}} {
		n, d := shape[0], shape[1]
		w, x, out := randomVector(rng, n*d), randomVector(rng, n), make([]float32, d)
		matmulRunC(out, x, w, n, d)
		for i := range out {
			var want float32
			for j := range n {
				want += float32(w[i*n+j] * x[j])
			}
			if math.Float32bits(out[i]) != math.Float32bits(want) {
				t.Errorf("%dx%d row %d: %v, run.c's order %v", n, d, i, out[i], want)
			}
		}
	}
}

func TestForwardDoesNotAllocate(t *testing.T) {
	// Gemma 3's additions: query and key norms, post-norms, a sliding
	// window and a local RoPE base.
	gemma3 := randomModel(t, randmodel.Stories15MK)
	if err := randmodel.Extend(gemma3, "gemma3", 3); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []Options{{}, {RunC: true}} {
		for _, m := range []*checkpoint.Model{loadModel(t, stories260K), gemma3} {
			forwardDoesNotAllocate(t, NewWith(m, opts), opts)
		}
	}
}

func forwardDoesNotAllocate(t *testing.T, tr *Transformer, opts Options) {
	pos := 0
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := tr.Forward(1, pos); err != nil {
			t.Fatal(err)
		}
		pos++
	})
	if allocs != 0 {
		t.Errorf("%v, %+v: Forward allocates %v times per call", tr.Config, opts, allocs)
	}
}

// TestSlidingWindow checks that a windowed layer gives no weight to the
// positions before its window, and that the other layers attend to every
// position: gemma2's additions, a window of 4 on layers 0, 2 and 4.
func TestSlidingWindow(t *testing.T) {
	m := randomModel(t, randmodel.Stories15MK)
	if err := randmodel.Extend(m, "gemma2", 3); err != nil {
		t.Fatal(err)
	}
	c := m.Config
	tr := New(m)
	for pos := range 10 {
		if _, err := tr.Forward((pos*37+1)%c.VocabSize, pos); err != nil {
			t.Fatal(err)
		}
		for l := range c.Layers {
			start := 0
			if l%2 == 0 {
				start = max(0, pos+1-randmodel.ExtendWindow)
			}
			for h := range c.Heads {
				att := tr.Latest().Attention(l, h)
				var sum float64
				for p, w := range att {
					sum += float64(w)
					if (w == 0) != (p < start) {
						t.Fatalf("position %d, layer %d, head %d: weight %v at position %d, window from %d", pos, l, h, w, p, start)
					}
				}
				if math.Abs(sum-1) > 1e-5 {
					t.Errorf("position %d, layer %d, head %d: weights sum to %v", pos, l, h, sum)
				}
			}
		}
	}
}

func randomVector(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = rng.Float32()*0.2 - 0.1
	}
	return v
}

// TestProbe checks that probing a past position gives exactly the logits,
// hidden state and attention its Forward gave, and changes neither the
// cache nor the latest pass.
func TestProbe(t *testing.T) {
	m := loadModel(t, stories260K)
	tr := New(m)
	c := m.Config
	tokens := []int{1, 300, 301, 40, 7, 99}
	type pass struct{ logits, hidden, att []float32 }
	var passes []pass
	for pos, tok := range tokens {
		if _, err := tr.Forward(tok, pos); err != nil {
			t.Fatal(err)
		}
		p := tr.Latest()
		var att []float32
		for l := range c.Layers {
			for h := range c.Heads {
				att = append(att, p.Attention(l, h)...)
			}
		}
		passes = append(passes, pass{slices.Clone(p.Logits()), slices.Clone(p.Hidden()), att})
	}
	keys := slices.Clone(tr.Cache.keys)
	latest := slices.Clone(tr.Latest().Logits())
	for pos, tok := range tokens {
		p, err := tr.Probe(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		var att []float32
		for l := range c.Layers {
			for h := range c.Heads {
				att = append(att, p.Attention(l, h)...)
			}
		}
		want := passes[pos]
		if p.Pos() != pos || !slices.Equal(p.Logits(), want.logits) || !slices.Equal(p.Hidden(), want.hidden) || !slices.Equal(att, want.att) {
			t.Errorf("probe of position %d differs from its forward pass", pos)
		}
	}
	if tr.Cache.Len != len(tokens) || !slices.Equal(tr.Cache.keys, keys) || !slices.Equal(tr.Latest().Logits(), latest) {
		t.Error("Probe changed the cache or the latest pass")
	}
	if _, err := tr.Probe(1, len(tokens)); err == nil {
		t.Error("Probe of a position not in the cache succeeded")
	}
}

// TestCacheGrows runs the same weights with a context of 512 and with a
// context of a million positions, whose full cache would take gigabytes:
// the second holds memory only for the positions it was fed, and its
// logits are the first's, bit for bit, across the cache's growth.
func TestCacheGrows(t *testing.T) {
	small := loadModel(t, stories260K)
	huge := *small
	huge.Config.SeqLen = 1 << 20
	a, b := New(small), New(&huge)
	if b.Cache.rows != firstRows || len(b.Cache.keys) != small.Config.Layers*firstRows*small.Config.KVDim() {
		t.Fatalf("a fresh cache holds %d positions, want %d", b.Cache.rows, firstRows)
	}
	for pos := range 300 {
		tok := (pos*37 + 1) % small.Config.VocabSize
		la, err := a.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		lb, err := b.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(la, lb) {
			t.Fatalf("position %d: logits differ once the cache grew", pos)
		}
	}
	if b.Cache.rows != 2*firstRows || b.Cache.Capacity() != 1<<20 || b.Cache.Len != 300 {
		t.Errorf("after 300 positions the cache holds %d positions of %d, %d filled", b.Cache.rows, b.Cache.Capacity(), b.Cache.Len)
	}
	// A rewind keeps the rows it keeps; probing them still agrees.
	p, err := b.Probe((299*37+1)%small.Config.VocabSize, 299)
	if err != nil || !slices.Equal(p.Logits(), a.Latest().Logits()) {
		t.Errorf("probe after growth: %v", err)
	}
}

// TestPrefillIsForward feeds prompts through Prefill, whose positions go
// through the layers together, and through Forward one at a time, from
// position 0 and after a first part, on float32 models (default and
// run.c's sums), every quantized format, every architecture's additions
// and the platform's kernels (testKernels): the logits, every cache row, the last pass's hidden
// state, attention and residuals are the same bits, and a bad prompt is
// refused before anything is fed.
func TestPrefillIsForward(t *testing.T) {
	type model struct {
		name string
		m    *checkpoint.Model
		opts Options
	}
	small := loadModel(t, stories260K)
	models := []model{{"stories260K, run.c's sums", small, Options{RunC: true}}}
	kernels := testKernels(t)
	for _, k := range kernels {
		models = append(models, model{"stories260K" + k.name, small, Options{Kernels: k.kernels}})
		for _, format := range threadFormats {
			models = append(models, model{format + k.name, threadModel(t, format), Options{Kernels: k.kernels}})
		}
	}
	for _, arch := range randmodel.Extensions {
		c := randmodel.Stories15MK
		c.Layers, c.SeqLen = 2, 128
		if arch == "qwen3" || arch == "gemma3" {
			c.HeadDim = 128 // wider than dim/heads, as theirs are
		}
		m := randomModel(t, c)
		if err := randmodel.Extend(m, arch, 3); err != nil {
			t.Fatal(err)
		}
		models = append(models, model{arch, m, Options{Kernels: kernels[0].kernels}})
	}
	for _, tc := range models {
		comparePrefill(t, tc.name, tc.m, tc.opts)
	}
	c := small.Config
	tr := New(small)
	for name, call := range map[string]func() error{
		"empty":     func() error { _, err := tr.Prefill(nil, 0); return err },
		"bad token": func() error { _, err := tr.Prefill([]int{1, c.VocabSize}, 0); return err },
		"gap":       func() error { _, err := tr.Prefill([]int{1}, 1); return err },
		"too long":  func() error { _, err := tr.Prefill(make([]int, c.SeqLen+1), 0); return err },
	} {
		if call() == nil {
			t.Errorf("%s: Prefill succeeded", name)
		}
		if tr.Cache.Len != 0 {
			t.Errorf("%s: the refused prompt fed %d positions", name, tr.Cache.Len)
		}
	}
}

// TestPrefillPause: Prefill calls Pause between positions where they go
// one at a time (a small model) and between layers where they go
// together, and an error from Pause stops it with that error.
func TestPrefillPause(t *testing.T) {
	m := loadModel(t, stories260K)
	stop := errors.New("stop")
	for _, tc := range []struct {
		name      string
		batchFrom int
		want      int // Pause's calls for 40 positions
	}{
		{"one at a time", 1 << 40, 39},
		{"together", 0, 2 * (m.Config.Layers - 1)},
	} {
		tokens := make([]int, 40)
		for i := range tokens {
			tokens[i] = (i*37 + 1) % m.Config.VocabSize
		}
		tr := New(m)
		tr.batchFrom = tc.batchFrom
		calls := 0
		tr.Pause = func() error { calls++; return nil }
		if _, err := tr.Prefill(tokens, 0); err != nil || calls != tc.want {
			t.Errorf("%s: Pause called %d times (%v), want %d", tc.name, calls, err, tc.want)
		}
		tr = New(m)
		tr.batchFrom = tc.batchFrom
		calls = 0
		tr.Pause = func() error {
			if calls++; calls == 2 {
				return stop
			}
			return nil
		}
		if _, err := tr.Prefill(tokens, 0); !errors.Is(err, stop) || calls != 2 {
			t.Errorf("%s: a Pause that stops: %v after %d calls, want %v after 2", tc.name, err, calls, stop)
		}
	}
}

// comparePrefill feeds prompts of m through Prefill, from position 0 and
// after a first part, and through Forward one position at a time, with
// opts, and fails t where the logits, a cache row, or the last pass's
// hidden state, attention or residuals are not the same bits, or where
// Prefill did not call Pause between the layers of each batch.
func comparePrefill(t *testing.T, name string, m *checkpoint.Model, opts Options) {
	t.Helper()
	c := m.Config
	for _, span := range [][2]int{{1, 0}, {prefillRows + 1, 0}, {40, 30}, {1, 30}} {
		n, start := span[0], span[1]
		if start+n > c.SeqLen {
			continue
		}
		name := fmt.Sprintf("%s/%d from %d", name, n, start)
		tokens := make([]int, start+n)
		for i := range tokens {
			tokens[i] = (i*37 + 1) % c.VocabSize
		}
		one, batched := NewWith(m, opts), NewWith(m, opts)
		batched.batchFrom = 0 // every model, however small
		var want []float32
		for pos, tok := range tokens {
			var err error
			if want, err = one.Forward(tok, pos); err != nil {
				t.Fatal(err)
			}
		}
		if start > 0 {
			if _, err := batched.Prefill(tokens[:start], 0); err != nil {
				t.Fatal(err)
			}
		}
		pauses := 0
		batched.Pause = func() error { pauses++; return nil }
		got, err := batched.Prefill(tokens[start:], start)
		if err != nil {
			t.Fatal(err)
		}
		if want := (n + prefillRows - 1) / prefillRows * (c.Layers - 1); pauses != want {
			t.Errorf("%s: Pause was called %d times, want %d: between the layers of each batch", name, pauses, want)
		}
		p, q := one.Latest(), batched.Latest()
		for _, v := range []struct {
			what      string
			want, got []float32
		}{
			{"logits", want, got}, {"keys", one.Cache.keys, batched.Cache.keys}, {"values", one.Cache.values, batched.Cache.values},
			{"hidden state", p.Hidden(), q.Hidden()}, {"attention", p.Attention(c.Layers-1, 0), q.Attention(c.Layers-1, 0)},
			{"residuals", one.act.residuals, batched.act.residuals},
		} {
			if i := firstDifference(v.want, v.got); i >= 0 {
				t.Errorf("%s: %s differ at %d", name, v.what, i)
			}
		}
		if batched.Cache.Len != one.Cache.Len || q.Pos() != p.Pos() {
			t.Errorf("%s: the cache holds %d positions and the pass is of %d, not %d and %d", name, batched.Cache.Len, q.Pos(), one.Cache.Len, p.Pos())
		}
	}
}

// namedKernels are kernels and how a test's name says which they are.
type namedKernels struct {
	name    string
	kernels Kernels
}

// firstDifference is the index of the first value of got that is not
// want's bits (lengths included), or −1.
func firstDifference(want, got []float32) int {
	for i := range min(len(want), len(got)) {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			return i
		}
	}
	if len(want) != len(got) {
		return min(len(want), len(got))
	}
	return -1
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}
