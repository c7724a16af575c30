//go:build !js

package main

import (
	"context"
	"testing"
	"time"
)

// stepToPicture is a page script: it clicks Step and resolves, once the
// KV card and the picture both show the new step, with the milliseconds
// until each did, and the animation frames the browser began between the
// two (0: the same frame). A page without the picture (a baseline's)
// resolves with picture −1 once the card shows it.
const stepToPicture = `() => new Promise(resolve => {
	const read = sel => document.querySelector(sel)?.textContent;
	const before = {cards: read('#kv-rows'), picture: read('#pic-values .pic-kv-rows')};
	let frame = 0, counting = true;
	const tick = () => { if (counting) { frame++; requestAnimationFrame(tick); } };
	requestAnimationFrame(tick);
	const at = {};
	const start = performance.now();
	const observer = new MutationObserver(() => {
		const now = performance.now();
		for (const [name, sel] of [['cards', '#kv-rows'], ['picture', '#pic-values .pic-kv-rows']]) {
			if (at[name] === undefined && read(sel) !== before[name]) at[name] = {ms: now - start, frame};
		}
		if (at.cards === undefined || (at.picture === undefined && before.picture !== undefined)) return;
		observer.disconnect();
		counting = false;
		resolve({cards: at.cards.ms, picture: at.picture?.ms ?? -1, frames: at.picture ? at.picture.frame - at.cards.frame : -1});
	});
	observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
	document.getElementById('step').click();
})`

// TestPictureTiming measures a step at position 500 on stories260K and on
// a random network of SmolLM2-135M's shape: how long until the KV card
// shows it and until the picture of the step does, in the same run, and
// the frames between the two, which the page paints in one batch. Each
// build has a tab of its own; the builds take turns, step and Undo, round
// by round (NEXTTOKEN_TIMING_ROUNDS, default 10), and after each step the
// picture must show what the cards show. A measurement: make timing runs
// it.
func TestPictureTiming(t *testing.T) {
	const stories, smol = "stories260K", "SmolLM2-135M shape, Q8_0"
	needTiming(t, stories+": picture", smol+": picture")
	rounds := timingRounds(10)
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	// Position 500 is the prompt's tokens and 495 steps after them. The
	// large model's page opens on the prompt, which a link of 495 steps
	// would replay before the page is live, and Run takes the steps.
	const steps = "495"
	settings := "&prompt=Once%20upon%20a%20time&temperature=1&seed=4&ignore_eos=1"
	for _, m := range []struct{ name, link string }{{stories, "/?model=stories260K&steps=" + steps}, {smol, ""}} {
		if !timingSelected(t, m.name+": picture") {
			continue
		}
		run := m.link == ""
		if run {
			m.link = smolLM2Link(t, m.name)
		}
		tabs := make([]context.Context, len(builds))
		for i, b := range builds {
			tab, closeTab := openBuildPage(t, b, m.link+settings, screen{})
			defer closeTab()
			if run {
				waitWithin(tab, `document.querySelector("#loading") === null && /^0 steps/.test(document.querySelector("#status")?.textContent ?? "")`, 5*time.Minute)
				setInput(tab, "#run-n", steps)
				click(tab, "#run")
			}
			waitWithin(tab, `/^`+steps+` steps/.test(document.querySelector("#status")?.textContent ?? "")`, 15*time.Minute)
			drawn(tab)
			t.Logf("%s, %s: the step on display reads %s positions", m.name, b.name, text(tab, "#kv-rows"))
			tabs[i] = tab
		}
		for range rounds {
			for i, b := range builds {
				r := evaluate[struct{ Cards, Picture, Frames float64 }](tabs[i], "("+stepToPicture+")()")
				if r.Picture >= 0 {
					if got := evaluate[struct{ Picture, Cards [3]string }](tabs[i], pictureAndCards); got.Picture != got.Cards {
						t.Errorf("%s, %s: at position 500 the picture shows %q, the cards %q", m.name, b.name, got.Picture, got.Cards)
					}
				}
				f.add(m.name+": step at position 500 → the cards (KV rows)", "ms", b, r.Cards)
				if r.Picture >= 0 {
					f.add(m.name+": picture: step → drawn at position 500", "ms", b, r.Picture)
					f.add(m.name+": picture: frames after the cards'", "frames", b, r.Frames)
				}
				measure(tabs[i], jsString("#kv-rows"), clickUndo)
			}
		}
	}
	f.report()
}
