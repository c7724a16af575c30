package transformer

import (
	"slices"
	"testing"

	"nexttoken/engine/randmodel"
)

// TestPrefillClassifiesLast checks that Prefill sends only its last
// position through the classifier, and that its logits, its last pass
// (hidden state, attention) and the cache are bit for bit those of a
// Forward at each position, from the start and after positions already in
// the cache, on a float32 and a quantized model.
func TestPrefillClassifiesLast(t *testing.T) {
	m := loadModel(t, stories260K)
	q, _, err := randmodel.BuildNamed(randmodel.Stories15M, 15, "Q4_K_M")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		tr       func() *Transformer
		n, start int
	}{
		{"one position", func() *Transformer { return New(m) }, 1, 0},
		{"three positions", func() *Transformer { return New(m) }, 3, 0},
		{"after the cache's", func() *Transformer { return New(m) }, 20, 7},
		{"quantized", func() *Transformer { return New(q) }, 5, 2},
	} {
		one, pre := tc.tr(), tc.tr()
		c := one.Config
		tokens := make([]int, tc.start+tc.n)
		for i := range tokens {
			tokens[i] = (i*37 + 1) % c.VocabSize
		}
		var want []float32
		for i, tok := range tokens {
			var err error
			if want, err = one.Forward(tok, i); err != nil {
				t.Fatal(err)
			}
		}
		if tc.start > 0 {
			if _, err := pre.Prefill(tokens[:tc.start], 0); err != nil {
				t.Fatal(err)
			}
		}
		before := pre.classified
		got, err := pre.Prefill(tokens[tc.start:], tc.start)
		if err != nil {
			t.Fatal(err)
		}
		if n := pre.classified - before; n != 1 {
			t.Errorf("%s: %d passes through the classifier, want 1", tc.name, n)
		}
		if !slices.Equal(got, want) || !slices.Equal(pre.Latest().Hidden(), one.Latest().Hidden()) ||
			!slices.Equal(pre.Latest().Attention(c.Layers-1, 0), one.Latest().Attention(c.Layers-1, 0)) {
			t.Errorf("%s: the logits or the last pass differ from Forward's", tc.name)
		}
		if pre.Cache.Len != one.Cache.Len || !slices.Equal(pre.Cache.keys, one.Cache.keys) || !slices.Equal(pre.Cache.values, one.Cache.values) {
			t.Errorf("%s: the cache differs from Forward's", tc.name)
		}
	}
}
