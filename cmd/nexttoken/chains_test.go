package main

import (
	"strings"
	"testing"
)

// TestTraceCompare runs the chains of --compare on the runtimes' known
// disagreements: each output names what each chain keeps, worked out by
// hand in package compare's tests.
func TestTraceCompare(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"min-p before the temperature", []string{"--logits=2,1,0", "--temperature=2", "--min-p=0.3", "--compare=chain,llama.cpp"},
			[]string{"chain vs llama.cpp: total variation", "3 and 2 tokens drawable, 2 in both"}},
		{"top-p before the temperature", []string{"--logits=3,2,1,0", "--temperature=2", "--top-p=0.8", "--compare=chain,llama.cpp"},
			[]string{"3 and 2 tokens drawable, 2 in both"}},
		{"top-k keeps the ties", []string{"--logits=3,2,2,2,1", "--temperature=1", "--top-k=2", "--compare=chain,hf"},
			[]string{"2 and 4 tokens drawable, 2 in both", "TopKLogitsWarper", "torch.multinomial's generator cannot be reproduced"}},
		{"llama.cpp letters", []string{"--logits=3,2,1,0", "--temperature=1", "--top-k=3", "--compare=chain,kt"},
			[]string{"kt\n      top-k", "3 and 3 tokens drawable, 3 in both"}},
		{"a model, every step", []string{"--model=stories260K", "--steps=2", "--temperature=1", "--top-p=0.9", "--compare=chain,llama.cpp,hf,runc"},
			[]string{"the chains on step 1's logits, each drawing u = ", "the chains on step 2's logits", "chain vs runc: total variation"}},
		{"DRY with the model's vocabulary", []string{"--model=stories260K", "--steps=2", "--sampler=llama.cpp", "--dry-multiplier=0.8",
			"--compare=chain,dkt,mirostat2"}, []string{"dkt\n      dry ", "mirostat2\n      temp ", "      mirostat-v2 "}},
	} {
		t.Run(tc.name, func(t *testing.T) { tracePrints(t, tc.args, tc.want) })
	}
}

func TestTraceCompareErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--compare=chain"}, "name two chains or more"},
		{[]string{"--compare=chain,beam"}, `chain "beam" is none of`},
		{[]string{"--compare=chain,llama.cpp", "--json"}, "--json does not carry the chains"},
		{[]string{"--compare=chain,runc", "--temperature=1", "--top-k=5"}, "--compare: runc:"},
		{[]string{"--compare=chain,hf", "--temperature=0"}, "--compare: hf: "},
		{[]string{"--compare=chain,llama.cpp", "--seed=4294967296"}, "does not fit llama.cpp's 32 bits"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			failsInOneLine(t, append([]string{"trace"}, tc.args...), tc.want)
		})
	}
}
