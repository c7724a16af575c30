package transformer

import (
	"fmt"

	"nexttoken/engine/checkpoint"
)

// Recompute is decoding without a KV cache: it runs the whole sequence
// tokens through the model from position 0, computing the key and value of
// every position afresh, and returns the logits after the last token — what
// a model without a cache does at every step (the seed's step 5, and
// Hugging Face's generate with use_cache=False). Only the last position
// goes through the classifier: nobody asks for the others' logits.
//
// It overwrites t's cache, whatever it held, so a session keeps its own
// Transformer and recomputes with a second one. The arithmetic is Forward's,
// position by position, so the logits equal the cached ones bit for bit:
// the cache changes what is computed, not how.
func (t *Transformer) Recompute(tokens []int) ([]float32, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("transformer: nothing to recompute")
	}
	if len(tokens) > t.Config.SeqLen {
		return nil, fmt.Errorf("transformer: %d tokens do not fit the context of %d", len(tokens), t.Config.SeqLen)
	}
	t.Cache.Len = 0
	for pos, tok := range tokens {
		if err := t.check(tok, pos, t.Cache.Len); err != nil {
			return nil, err
		}
		t.Cache.Len = pos + 1
		t.forward(&t.act, tok, pos, pos == len(tokens)-1)
	}
	return t.act.logits, nil
}

// MultiplyAdds is the number of multiply-adds of the decode step that
// feeds position pos with the cache: per layer the products by Wq, Wk, Wv,
// Wo, W1, W3 and W2 (one per weight), and attention over the pos+1
// positions so far, q·k and the weighted sum of the values, head_size per
// head and position each; then the classifier, dim × vocab. The norms,
// RoPE, softmax and SwiGLU cost O(dim) and are not counted. A quantized
// matrix costs the same count in integer products.
func MultiplyAdds(c checkpoint.Config, pos int) int {
	return c.Layers*(layerWeights(c)+attention(c, pos)) + c.Dim*c.VocabSize
}

// RecomputeMultiplyAdds is the number of multiply-adds of Recompute's step
// at pos: every position 0..pos through every layer, each attending to the
// positions before it, and the classifier once. It grows with pos², where
// MultiplyAdds grows with pos.
func RecomputeMultiplyAdds(c checkpoint.Config, pos int) int {
	n := pos + 1
	// Σ_{p=0}^{pos} attention(c, p) = 2·q_dim·(1 + 2 + … + n).
	return c.Layers*(n*layerWeights(c)+2*c.QDim()*n*(n+1)/2) + c.Dim*c.VocabSize
}

// layerWeights is one position's multiply-adds by a layer's weight
// matrices: Wq and Wo are q_dim × dim (dim × dim unless the heads are
// another width), Wk and Wv kv_dim × dim, W1, W3 and W2
// hold hidden × dim weights each (W3 and W2 without a gate).
func layerWeights(c checkpoint.Config) int {
	ffn := 3
	if c.Ungated {
		ffn = 2
	}
	return 2*c.QDim()*c.Dim + 2*c.KVDim()*c.Dim + ffn*c.HiddenDim*c.Dim
}

// attention is one layer's attention at pos: for each head, a head_size
// dot product with each of the pos+1 keys and a head_size sum of the pos+1
// values, 2·q_dim·(pos+1) in all.
func attention(c checkpoint.Config, pos int) int { return 2 * c.QDim() * (pos + 1) }
