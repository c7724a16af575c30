package main

import (
	"net/url"
	"testing"

	"nexttoken/engine/link"
)

// TestNumberGrammar types the same numbers into a link and a flag: a
// setting and the step count take one grammar, so each is taken by both or
// refused by both.
func TestNumberGrammar(t *testing.T) {
	for _, tc := range []struct {
		param, flag string
		values      []string
	}{
		{"seed", "--seed", []string{"1000", "1e3", "1000.0", "0x10", "1_000", "+7", " 7", "9007199254740991", "9007199254740992"}},
		{"top_k", "--top-k", []string{"40", "4e1", "0x28", "40.5"}},
		{"temperature", "--temperature", []string{"0.5", "5e-1", ".5", "0x1p-1", "1_0", "Inf"}},
		{"steps", "--steps", []string{"3", "3e0", "0x3", "1_0", "+3", "3.0"}},
	} {
		for _, v := range tc.values {
			_, linkErr := link.Parse(url.Values{"model": {"toy"}, tc.param: {v}})
			code, _, errs := runCmd("trace", "--model=toy", "--prompt=The", tc.flag+"="+v)
			if (linkErr == nil) != (code == 0) {
				t.Errorf("%s %q: the link's error is %v, the flag's exit %d (%s)", tc.param, v, linkErr, code, errs)
			}
		}
	}
}
