package transformer

import (
	"fmt"

	"nexttoken/engine/softmax"
)

// LensLayer is what the logit lens reads after one layer: the tokens the
// model would predict if it stopped there.
type LensLayer struct {
	Layer int         // 0 is the first layer
	Top   []LensToken // most probable first
}

// LensToken is one token of a LensLayer with its probability.
type LensToken struct {
	Token int
	P     float64
}

// Lens is the logit lens (nostalgebraist, "interpreting GPT: the logit
// lens", 2020) of the pass: for every layer l, the residual stream x_l
// after it goes through the model's own final norm and classifier,
//
//	logits_l = Wcls · (rmsnorm(x_l) ⊙ g_final),   p_l = softmax(logits_l),
//
// (soft-capped as the pass's logits are, when the model caps them),
// and the k most probable tokens of p_l are kept (ties by ascending id, as
// softmax.Top ranks them). At the last layer this is exactly the pass's own
// computation, so its logits are the pass's, bit for bit. The softmax is
// the sampler's, softmax.Probs in float64 at temperature 1.
//
// It reads the residuals the pass kept and allocates its results; the
// forward pass does no work for it. It fails only on a layer whose logits
// are NaN or +Inf, which broken weights give.
func (p *Pass) Lens(k int) ([]LensLayer, error) {
	t, c := p.t, p.t.Config
	h := make([]float32, c.Dim)
	var wide []float64
	logits := make([]float32, c.VocabSize)
	probs := make([]float64, c.VocabSize)
	layers := make([]LensLayer, c.Layers)
	for l := range layers {
		t.norm(h, p.a.residuals[l*c.Dim:(l+1)*c.Dim], t.W.RMSFinal, t.W.NormFinalBias, 0)
		t.logitsOf(logits, h)
		wide = softmax.Widen(wide, logits)
		if _, _, err := softmax.Probs(probs, wide, 1); err != nil {
			return nil, fmt.Errorf("transformer: logit lens at layer %d: %w", l, err)
		}
		top := softmax.Top(probs, k, nil)
		layers[l] = LensLayer{Layer: l, Top: make([]LensToken, len(top))}
		for i, id := range top {
			layers[l].Top[i] = LensToken{Token: id, P: probs[id]}
		}
	}
	return layers, nil
}
