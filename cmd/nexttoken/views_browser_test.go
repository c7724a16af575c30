//go:build !js

package main

import (
	"strconv"
	"strings"
	"testing"
)

// pointTimeline is a page script: it sends a mouse event of the given
// type to the timeline over step i (from 0), at the centre of the step's
// band, where a reader's pointer would be.
const pointTimeline = `(type, i) => {
	const hit = document.getElementById('timeline-hit');
	const r = hit.getBoundingClientRect();
	const n = document.querySelector('#timeline path.prob').getAttribute('d').split('L').length;
	hit.dispatchEvent(new MouseEvent(type, {bubbles: true, clientX: r.left + r.width * (i + 0.5) / n, clientY: r.top + r.height / 2}));
}`

// clickTimeline is a page script: it clicks the timeline over step i.
const clickTimeline = `(i) => (` + pointTimeline + `)('click', i)`

// TestTimelineOpensStep points at the timeline, whose readout says the
// step under the pointer, and clicks points of it: the step clicked is the
// one on display, in the title, the strip and the timeline's readout.
func TestTimelineOpensStep(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=40&temperature=1&seed=3")
	evaluate[bool](tab, "(("+pointTimeline+")('mousemove', 12), true)")
	waitFor(tab, `document.getElementById('timeline-readout')?.textContent.startsWith('step 13 ')`)
	if got := text(tab, "#step-title"); !strings.HasPrefix(got, "Next step") {
		t.Errorf("pointing at the timeline changed the step on display: %q", got)
	}
	evaluate[bool](tab, `(document.getElementById('timeline-hit').dispatchEvent(new MouseEvent('mouseleave')), true)`)
	waitFor(tab, `document.getElementById('timeline-readout')?.textContent.startsWith('Hover over the chart')`)
	for _, step := range []int{7, 0, 39, 21} {
		evaluate[bool](tab, "(("+clickTimeline+")("+strconv.Itoa(step)+"), true)")
		// The title is a hot view, painted in the click's task; go-app
		// draws the strip at its next frame.
		want := "Step " + strconv.Itoa(step+1) + ":"
		waitFor(tab, `document.getElementById('step-title')?.textContent.startsWith(`+jsString(want)+`) &&
			document.querySelector('#tokens .tok.selected')?.dataset.step === `+jsString(strconv.Itoa(step)))
		if got := text(tab, "#timeline-readout"); !strings.HasPrefix(got, "step "+strconv.Itoa(step+1)+" ") {
			t.Errorf("clicked step %d: readout %q", step, got)
		}
	}
}

// TestLensFollowsStep opens the logit lens card and selects steps from the
// strip: the grid is the selected step's, and in greedy decoding the
// step's token leads the last layer's row.
func TestLensFollowsStep(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=12")
	evaluate[bool](tab, `(document.querySelector('#lens summary').click(), true)`)
	waitFor(tab, `document.getElementById('lens-grid')?.dataset.step === '12'`)
	grids := map[string]bool{}
	for _, step := range []int{3, 8, 0} {
		s := strconv.Itoa(step)
		evaluate[bool](tab, `(document.querySelector('#tokens .tok[data-step="`+s+`"]').click(), true)`)
		waitFor(tab, `document.getElementById('lens-grid')?.dataset.step === `+jsString(s))
		lead := `document.querySelector('#lens-grid tr:last-child td.lens')`
		if !evaluate[bool](tab, lead+`.classList.contains('chosen')`) {
			t.Errorf("step %d: the last layer's most probable token %q is not the greedy step's token", step, evaluate[string](tab, lead+`.textContent`))
		}
		grids[evaluate[string](tab, `document.getElementById('lens-grid').textContent`)] = true
	}
	if len(grids) != 3 {
		t.Errorf("three steps showed %d different grids", len(grids))
	}
}

// TestRecomputeShowsDifference turns on recomputing without the cache: the
// card compares the step on display's logits both ways, and follows the
// selection.
func TestRecomputeShowsDifference(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=10&temperature=1&seed=3")
	evaluate[bool](tab, `(document.getElementById('recompute-toggle').click(), true)`)
	waitFor(tab, `document.getElementById('recompute-diff')?.textContent.startsWith('Step 11 recomputed over all 15 positions')`)
	if got := text(tab, "#recompute-diff"); !strings.Contains(got, "bit-identical") {
		t.Errorf("recomputing stories260K in float32: %q, want bit-identical", got)
	}
	evaluate[bool](tab, `(document.querySelector('#tokens .tok[data-step="3"]').click(), true)`)
	waitFor(tab, `document.getElementById('recompute-diff')?.textContent.startsWith('Step 4 recomputed over all 8 positions')`)
	if n := evaluate[int](tab, `document.querySelectorAll('#recompute-times circle.recomputed').length`); n != 2 {
		t.Errorf("%d steps measured on the chart, want 2", n)
	}
}
