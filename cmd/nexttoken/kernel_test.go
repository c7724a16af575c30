//go:build !js

package main

import (
	"regexp"
	"strconv"
	"testing"
)

// TestKernel checks that the playground decodes with the engine's
// WebAssembly SIMD kernel and says so (data-kernel on the root element),
// that simd=0 in the address runs the Go loop instead, and that both give
// the greedy stories260K text the native engine gives (nexttoken trace),
// and the same tokens with the same probabilities.
func TestKernel(t *testing.T) {
	const steps = 64
	code, out, errs := runCmd("trace", "--model=stories260K", "--prompt=Once upon a time", "--steps="+strconv.Itoa(steps))
	if code != 0 {
		t.Fatalf("trace: exit %d: %s", code, errs)
	}
	m := regexp.MustCompile(`(?m)^text: (".*")$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("trace printed no text:\n%s", out)
	}
	want, err := strconv.Unquote(m[1])
	if err != nil {
		t.Fatal(err)
	}
	var tokens []string
	for _, c := range []struct{ query, kernel string }{{"", "SIMD"}, {"&simd=0", "Go"}} {
		tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps="+strconv.Itoa(steps)+c.query)
		if got := evaluate[string](tab, `document.documentElement.dataset.kernel`); got != c.kernel {
			t.Errorf("%q: the page reports the %q kernel, want %q", c.query, got, c.kernel)
		}
		waitFor(tab, `document.querySelector('#status').textContent === '`+strconv.Itoa(steps)+` steps'`)
		if got := evaluate[string](tab, `document.querySelector('#text').textContent`); got != want {
			t.Errorf("%s kernel: text %q, want nexttoken trace's %q", c.kernel, got, want)
		}
		// Each chip's title names its step, piece and probability.
		tokens = append(tokens, evaluate[string](tab, `[...document.querySelectorAll('#tokens .tok.gen')].map(e => e.title).join('\n')`))
	}
	if tokens[0] != tokens[1] || tokens[0] == "" {
		t.Errorf("the generated tokens differ:\nSIMD:\n%s\nGo:\n%s", tokens[0], tokens[1])
	}
}
