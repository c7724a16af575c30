package transformer_test

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/sampler"
	"nexttoken/engine/softmax"
	"nexttoken/engine/transformer"
)

// load reads a built-in model's checkpoint from web/models: the browser
// build, whose tests run under node, does not embed stories260K.
func load(t testing.TB, name string) *checkpoint.Model {
	t.Helper()
	m, err := checkpoint.ReadFile("../../web/models/" + name + ".bin")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// maxAbsDiff is the largest |a[i] − b[i]|.
func maxAbsDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

// TestRecomputeMatchesCache decodes 100 positions of stories260K greedily
// with the cache and, at every step, recomputes the whole sequence without
// it. The recomputing Transformer first holds another sequence in its
// cache, so that a row it wrongly kept would change the logits.
func TestRecomputeMatchesCache(t *testing.T) {
	m := load(t, "stories260K")
	const positions = 100
	for _, opts := range []transformer.Options{{}, {RunC: true}} {
		cached, fresh := transformer.NewWith(m, opts), transformer.NewWith(m, opts)
		other := make([]int, positions)
		for i := range other {
			other[i] = (i*37 + 5) % m.Config.VocabSize
		}
		if _, err := fresh.Prefill(other, 0); err != nil {
			t.Fatal(err)
		}
		tokens := []int{1}
		var worst float64
		for pos := range positions {
			logits, err := cached.Forward(tokens[pos], pos)
			if err != nil {
				t.Fatal(err)
			}
			again, err := fresh.Recompute(tokens)
			if err != nil {
				t.Fatal(err)
			}
			worst = max(worst, maxAbsDiff(logits, again))
			tokens = append(tokens, sampler.Argmax(logits))
		}
		t.Logf("%+v: largest |cached − recomputed| over %d positions: %g", opts, positions, worst)
		// Recompute runs Forward's arithmetic: the cache must change nothing.
		if worst != 0 {
			t.Errorf("%+v: recomputed logits differ from the cached ones by up to %g", opts, worst)
		}
	}
}

func TestRecomputeRejectsBadInput(t *testing.T) {
	m := load(t, "toy")
	tr := transformer.New(m)
	for name, tokens := range map[string][]int{
		"empty":        {},
		"bad token":    {0, m.Config.VocabSize},
		"negative":     {-1},
		"over context": make([]int, m.Config.SeqLen+1),
	} {
		if _, err := tr.Recompute(tokens); err == nil {
			t.Errorf("%s: Recompute(%v) succeeded", name, tokens)
		}
	}
}

// TestMultiplyAdds counts the toy model's multiply-adds by hand: dim 4,
// hidden 8, 2 layers, 2 heads of size 2 (and 2 kv heads), vocab 6.
//
// Per position and layer, the weights: Wq, Wk, Wv, Wo are 4×4, 16 each;
// W1, W3 are 8×4 and W2 4×8, 32 each: 4·16 + 3·32 = 160. Attention at
// position p: 2 heads × (p+1) positions × 2 (head size) for q·k, the same
// for the weighted values: 8(p+1). The classifier: 6×4 = 24.
func TestMultiplyAdds(t *testing.T) {
	c := load(t, "toy").Config
	if c.Dim != 4 || c.HiddenDim != 8 || c.Layers != 2 || c.Heads != 2 || c.KVHeads != 2 || c.VocabSize != 6 {
		t.Fatalf("the toy model is %v, not the shape worked out here", c)
	}
	for _, tc := range []struct{ pos, cached, recomputed int }{
		// One position: nothing to recompute, 2·(160 + 8) + 24.
		{0, 360, 360},
		// Cached, 2·(160 + 16) + 24; recomputed, position 0 then 1
		// through both layers, 2·((160 + 8) + (160 + 16)) + 24.
		{1, 376, 712},
		// Cached, 2·(160 + 48) + 24; recomputed, 2·(6·160 + 8·(1+2+…+6)) + 24
		// = 2·(960 + 168) + 24.
		{5, 440, 2280},
	} {
		if got := transformer.MultiplyAdds(c, tc.pos); got != tc.cached {
			t.Errorf("position %d: %d multiply-adds with the cache, want %d", tc.pos, got, tc.cached)
		}
		if got := transformer.RecomputeMultiplyAdds(c, tc.pos); got != tc.recomputed {
			t.Errorf("position %d: %d multiply-adds recomputed, want %d", tc.pos, got, tc.recomputed)
		}
	}
}

// TestLensLastLayer checks that the lens after the last layer is the
// pass's own prediction: the top k of the softmax of the step's logits,
// with the same probabilities, for the latest pass and for a probed one;
// and that it has a layer per layer, each with k tokens in order.
func TestLensLastLayer(t *testing.T) {
	m := load(t, "stories260K")
	tr := transformer.New(m)
	const k = 7
	tokens := []int{1, 300, 301, 40, 7, 99}
	var first []transformer.LensLayer
	for pos, tok := range tokens {
		logits, err := tr.Forward(tok, pos)
		if err != nil {
			t.Fatal(err)
		}
		lens, err := tr.Latest().Lens(k)
		if err != nil {
			t.Fatal(err)
		}
		if pos == 0 {
			first = lens
		}
		if len(lens) != m.Config.Layers {
			t.Fatalf("position %d: %d lens layers, want %d", pos, len(lens), m.Config.Layers)
		}
		wide := make([]float64, len(logits))
		for i, v := range logits {
			wide[i] = float64(v)
		}
		probs := make([]float64, len(wide))
		if _, _, err := softmax.Probs(probs, wide, 1); err != nil {
			t.Fatal(err)
		}
		var want []transformer.LensToken
		for _, id := range softmax.Top(probs, k, nil) {
			want = append(want, transformer.LensToken{Token: id, P: probs[id]})
		}
		for l, layer := range lens {
			if layer.Layer != l || len(layer.Top) != k || !slices.IsSortedFunc(layer.Top, func(a, b transformer.LensToken) int {
				return cmp.Compare(b.P, a.P)
			}) {
				t.Errorf("position %d layer %d: %+v is not that layer's top %d, most probable first", pos, l, layer, k)
			}
		}
		if last := lens[len(lens)-1].Top; !slices.Equal(last, want) {
			t.Errorf("position %d: lens at the last layer %v, the logits' top %v", pos, last, want)
		}
	}
	// The lens follows the pass asked about: a probe of position 0 gives
	// position 0's lens again.
	p, err := tr.Probe(tokens[0], 0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Lens(k)
	if err != nil || !slices.EqualFunc(again, first, func(a, b transformer.LensLayer) bool {
		return a.Layer == b.Layer && slices.Equal(a.Top, b.Top)
	}) {
		t.Errorf("lens of a probe of position 0 differs from its forward pass's (%v)", err)
	}
}
