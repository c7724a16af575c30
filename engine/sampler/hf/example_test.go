package hf_test

import (
	"fmt"

	"nexttoken/engine/sampler/hf"
)

// HF's top-k keeps every token tied with the k-th score: with logits
// 3, 2, 2, 2, 1 and top_k = 2 the 2nd largest score is 2, so tokens 0 to 3
// survive, where package sampler would keep exactly two. The survivors'
// probabilities are softmax(3, 2, 2, 2) = (1, e⁻¹, e⁻¹, e⁻¹)/(1 + 3e⁻¹).
func Example_topKTies() {
	c := hf.Defaults()
	c.TopK = 2
	procs, err := hf.Processors(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := hf.Run(procs, []float32{3, 2, 2, 2, 1}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range r.Steps {
		fmt.Println(st.Name, "keeps", st.Kept)
	}
	fmt.Printf("probs %.4f\n", r.Probs)
	// Output:
	// TopKLogitsWarper keeps [0 1 2 3]
	// probs [0.4754 0.1749 0.1749 0.1749 0.0000]
}
