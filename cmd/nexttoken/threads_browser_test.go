//go:build !js

package main

import (
	"testing"

	"nexttoken/engine/randmodel"
)

// TestThreadsInThePage opens a reader's model of stories15M's shape, in
// Q8_0, on the server's page: with threads=2 the page is cross-origin
// isolated, downloads the program on a shared memory and runs its
// products on two threads, and so does the engine's worker, which runs
// the model; without, it is not isolated, downloads app.wasm and runs on
// one. Four steps show the same tokens and the same numbers in every card
// either way.
func TestThreadsInThePage(t *testing.T) {
	link := randomModelLink(t, "stories15M shape, Q8_0", randmodel.Stories15M) + "&prompt=Once+upon+a+time&temperature=1&seed=3"
	// cards is the text of the step's cards, numbers and all.
	const cards = `[...document.querySelectorAll("#tokens, #logits table, #softmax table, #sampler table")].map(e => e.textContent).join("\n")`
	var seen [2]string
	for i, c := range []struct {
		query, program string
		isolated       bool
	}{{"", "/web/app.wasm", false}, {"&threads=2", "/web/shared/app.wasm", true}} {
		tab := openPage(t, link+c.query)
		if got := evaluate[bool](tab, `crossOriginIsolated`); got != c.isolated {
			t.Errorf("%q: cross-origin isolated %v", c.query, got)
		}
		if got := evaluate[string](tab, pageFiles+`.map(f => f.name).find(p => p.endsWith("app.wasm"))`); got != c.program {
			t.Errorf("%q: the page downloaded %s, not %s", c.query, got, c.program)
		}
		if c.isolated {
			for _, who := range []string{"threads", "workerThreads"} {
				waitFor(tab, `document.documentElement.dataset.`+who+` === "2" || document.documentElement.dataset.`+who+`Error`)
				if err := evaluate[string](tab, `document.documentElement.dataset.`+who+`Error ?? ""`); err != "" {
					t.Fatalf("%q: %s: %s", c.query, who, err)
				}
			}
		} else if got := evaluate[string](tab, `document.documentElement.dataset.workerThreads ?? ""`); got != "" {
			t.Errorf("%q: the engine's worker runs %s threads where the page is not isolated", c.query, got)
		}
		for range 4 {
			click(tab, "#step")
		}
		waitFor(tab, `document.querySelectorAll("#tokens button.tok.gen").length === 4`)
		drawn(tab)
		seen[i] = evaluate[string](tab, cards)
	}
	if seen[0] != seen[1] || seen[0] == "" {
		t.Errorf("the cards differ on one thread and on two:\n%s\n--- on two:\n%s", seen[0], seen[1])
	}
}
