package session_test

import (
	"fmt"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// The worked example: hand-typed logits, one greedy step.
func Example() {
	s, err := session.New(session.Spec{
		Model:   session.LogitsModel,
		Vocab:   []string{"The", "cat", "sat", "on", "the", "mat"},
		Logits:  []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5},
		Sampler: sampler.DefaultSettings(),
		Steps:   1,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := s.Detail(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	sm := d.Choice.Softmax
	fmt.Printf("max %.1f, sum %.4f\n", sm.Max, sm.Sum)
	for i, p := range sm.Probs {
		fmt.Printf("%s %.4f\n", s.Model().Tokenizer.Token(i), p)
	}
	fmt.Println("chosen:", s.Trace().Text)
	// Output:
	// max 3.1, sum 1.2437
	// The 0.0044
	// cat 0.0489
	// sat 0.8041
	// on 0.0806
	// the 0.0400
	// mat 0.0220
	// chosen: sat
}

// A session on the toy model: each step feeds the chosen token back, and the
// KV cache grows by one row.
func Example_toyModel() {
	s, err := session.New(session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings()}, models.Load)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("after prefill the cache holds", s.Transformer().Cache.Len, "positions")
	for range 4 {
		if err := s.Step(); err != nil {
			fmt.Println(err)
			return
		}
		st := s.Trace().Steps[len(s.Trace().Steps)-1]
		fmt.Printf("%q p=%.3f, cache %d rows\n", st.Piece, st.Prob, st.KVLen)
	}
	fmt.Println(s.Trace().Text)
	// Output:
	// after prefill the cache holds 2 positions
	// " sat" p=0.804, cache 3 rows
	// " on" p=0.813, cache 4 rows
	// " the" p=0.860, cache 5 rows
	// " mat" p=0.754, cache 6 rows
	// The cat sat on the mat
}

// Forcing a token forks the session; its Spec reproduces the fork.
func ExampleSession_Force() {
	s, err := session.New(session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: 2}, models.Load)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Force(1, 5); err != nil { // "mat" instead of "on" at step 1
		fmt.Println(err)
		return
	}
	again, err := session.New(s.Spec(), models.Load)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Trace().Text)
	fmt.Println(again.Trace().Text)
	// Output:
	// The cat sat mat
	// The cat sat mat
}
