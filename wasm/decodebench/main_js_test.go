package main

import (
	"strings"
	"testing"

	"nexttoken/engine/quant"
)

// TestLoad checks that the random models load in every shape and format
// the query may name that fits, and that a shape or format that does not
// is refused with an error naming it.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		shape, format string
		want          quant.Type // the token embedding's type
		err           string
	}{
		{"", "", quant.F32, ""},
		{"stories15mk", "q4_k_m", quant.Q6_K, ""},
		{"stories15mk", "Q4_0", quant.Q4_0, ""},
		{"", "q4_k", 0, "shape stories15m in format q4_k: randmodel: token_embedding of layer -1 is 288 wide, not a whole number of Q4_K blocks"},
		{"", "q6_k", 0, "288 wide, not a whole number of Q6_K blocks"},
		{"stories15mk", "iq2_xxs", 0, `format "iq2_xxs" is not F32, Q4_K_M, Q5_K_M or a quantized type`},
		{"stories42M", "", 0, "shape stories42M is not one of qwen2.5-0.5b, smollm2, stories15m, stories15mk"},
	} {
		m, _, err := load("", tc.shape, tc.format)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("shape %q, format %q: error %v, want one saying %q", tc.shape, tc.format, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("shape %q, format %q: %v", tc.shape, tc.format, err)
		case tc.err == "" && m.Matrices().TokenEmbedding.Type != tc.want:
			t.Errorf("shape %q, format %q: token embedding %s, want %s", tc.shape, tc.format, m.Matrices().TokenEmbedding.Type, tc.want)
		}
	}
}
