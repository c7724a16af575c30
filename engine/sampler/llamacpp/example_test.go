package llamacpp_test

import (
	"fmt"

	"nexttoken/engine/sampler/llamacpp"
)

// The default chain on the worked example's six logits: top-k 40 keeps all
// six and sorts them, top-p 0.95 cuts the tail, min-p 0.05 then compares
// with the best token at temperature 1, and only then does the
// temperature 0.8 sharpen what is left; dist draws from it. A "?" marks
// a stage its settings switch off, as llama.cpp names it. (llama.cpp
// itself, run on these logits, prints the same arrays and token 2.)
func Example() {
	logits := []float32{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	c, err := llamacpp.New(llamacpp.Defaults())
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := c.Sample(logits, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range r.Stages {
		fmt.Printf("%-13s", s.Name)
		for _, t := range s.Tokens {
			fmt.Printf(" %d", t.ID)
		}
		fmt.Println()
	}
	fmt.Printf("u = %.4f, token %d (p = %.4f)\n", r.U, r.Token, r.Stages[len(r.Stages)-1].Tokens[r.Index].P)
	// Output:
	// ?penalties    0 1 2 3 4 5
	// ?dry          0 1 2 3 4 5
	// ?top-n-sigma  0 1 2 3 4 5
	// top-k         2 3 1 4 5 0
	// ?typical      2 3 1 4 5 0
	// top-p         2 3 1 4
	// min-p         2 3 1
	// ?xtc          2 3 1
	// temp-ext      2 3 1
	// dist          2 3 1
	// u = 0.1355, token 2 (p = 0.9203)
}
