package sampler_test

import (
	"fmt"

	"nexttoken/engine/sampler"
)

// Greedy decoding of the worked example picks the largest logit; the
// display softmax is at temperature 1.
func Example_greedy() {
	logits := []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	s := sampler.DefaultSettings()
	rng := sampler.NewRNG(s.Seed)
	c, err := sampler.Sample(s, logits, nil, &rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("token %d, greedy %v, p = %.3f\n", c.Token, c.Greedy, c.Softmax.Probs[c.Token])
	// Output:
	// token 2, greedy true, p = 0.804
}

// Nucleus sampling of the worked example: top-p keeps the most probable
// tokens until their probability reaches 0.9, and each draw walks the
// renormalised survivors from the most probable.
func Example_topP() {
	logits := []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	s := sampler.Settings{Temperature: 1, TopP: 0.9, Seed: 42}
	rng := sampler.NewRNG(s.Seed)
	c, err := sampler.Sample(s, logits, nil, &rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range c.Stages {
		fmt.Printf("%-11s removed %v (mass %.4f), probs %.4f\n", st.Name, st.Removed, st.RemovedMass, st.Probs)
	}
	fmt.Printf("order %v, cdf %.4f\n", c.Draw.Order, c.Draw.CDF)
	for range 5 {
		fmt.Printf("u = %.4f → token %d\n", c.Draw.U, c.Token)
		if c, err = sampler.Sample(s, logits, nil, &rng); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// temperature removed [] (mass 0.0000), probs [0.0044 0.0489 0.8041 0.0806 0.0400 0.0220]
	// top_p       removed [0 4 5] (mass 0.0664), probs [0.0000 0.0524 0.8613 0.0864 0.0000 0.0000]
	// order [2 3 1], cdf [0.8613 0.9476 1.0000]
	// u = 0.3391 → token 2
	// u = 0.7823 → token 2
	// u = 0.7901 → token 2
	// u = 0.9440 → token 3
	// u = 0.7644 → token 2
}

// The same in run.c mode: run.c first drops the tokens below
// (1 − 0.9)/(6 − 1) = 0.02, then cuts the sorted rest where the running sum
// first exceeds 0.9, and scales the coin by the kept mass instead of
// renormalising.
func Example_runC() {
	logits := []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	s := sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 42}
	rng := sampler.NewRNG(s.Seed)
	c, err := sampler.Sample(s, logits, nil, &rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range c.Stages[1:] {
		fmt.Printf("%-11s removed %v\n", st.Name, st.Removed)
	}
	d := c.Draw
	fmt.Printf("coin %.4f × kept %.4f = target %.4f\n", d.U, d.CDF[len(d.CDF)-1], d.Target)
	fmt.Printf("order %v, cdf %.4f → token %d\n", d.Order, d.CDF, c.Token)
	// Output:
	// runc_cutoff removed [0]
	// top_p       removed [4 5]
	// coin 0.3391 × kept 0.9336 = target 0.3166
	// order [2 3 1], cdf [0.8041 0.8847 0.9336] → token 2
}

// The generator is run.c's: these are the first coins run.c flips with
// seed 42.
func ExampleRNG_Float32() {
	rng := sampler.NewRNG(42)
	for range 3 {
		fmt.Printf("%.6f\n", rng.Float32())
	}
	// Output:
	// 0.339085
	// 0.782256
	// 0.790137
}
