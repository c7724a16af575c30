//go:build !js

package main

import (
	"testing"

	"nexttoken/engine/randmodel"
)

// TestThreadsInThePage opens a reader's model of stories15M's shape, in
// Q8_0, on the server's page, which is cross-origin isolated: the page
// downloads the program on a shared memory and runs its products on two
// threads (threads=2), and on one with threads=1; four steps show the same
// tokens and the same numbers in every card either way.
func TestThreadsInThePage(t *testing.T) {
	link := randomModelLink(t, "stories15M shape, Q8_0", randmodel.Stories15M) + "&prompt=Once+upon+a+time&temperature=1&seed=3"
	// cards is the text of the step's cards, numbers and all.
	const cards = `[...document.querySelectorAll("#tokens, #logits table, #softmax table, #sampler table")].map(e => e.textContent).join("\n")`
	var seen [2]string
	for i, threads := range []string{"1", "2"} {
		tab := openPage(t, link+"&threads="+threads)
		if !evaluate[bool](tab, `crossOriginIsolated`) {
			t.Fatal("the server's page is not cross-origin isolated")
		}
		if got := evaluate[string](tab, `performance.getEntriesByType("resource").map(e => new URL(e.name).pathname).find(p => p.endsWith("app.wasm"))`); got != "/web/shared/app.wasm" {
			t.Errorf("threads=%s: the page downloaded %s, not the program on a shared memory", threads, got)
		}
		waitFor(tab, `document.documentElement.dataset.threads === `+jsString(threads)+` || document.documentElement.dataset.threadsError`)
		if err := evaluate[string](tab, `document.documentElement.dataset.threadsError ?? ""`); err != "" {
			t.Fatalf("threads=%s: %s", threads, err)
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
