//go:build !js

package main

import (
	"strconv"
	"strings"
	"testing"
)

// clickTimeline is a page script: it clicks the timeline over step i (from
// 0), at the centre of the step's band, as a reader's click would land.
const clickTimeline = `(i) => {
	const hit = document.getElementById('timeline-hit');
	const r = hit.getBoundingClientRect();
	const n = document.querySelector('#timeline path.prob').getAttribute('d').split('L').length;
	hit.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + r.width * (i + 0.5) / n, clientY: r.top + r.height / 2}));
}`

// TestTimelineOpensStep clicks points of the timeline: the step clicked is
// the one on display, in the title, the strip and the timeline's readout.
func TestTimelineOpensStep(t *testing.T) {
	tab := openPage(t, "/?model=stories260K&prompt=Once%20upon%20a%20time&steps=40&temperature=1&seed=3")
	for _, step := range []int{7, 0, 39, 21} {
		evaluate[bool](tab, "(("+clickTimeline+")("+strconv.Itoa(step)+"), true)")
		want := "Step " + strconv.Itoa(step+1) + ":"
		waitFor(tab, `document.getElementById('step-title')?.textContent.startsWith(`+jsString(want)+`)`)
		if got := evaluate[string](tab, `document.querySelector('#tokens .tok.selected')?.dataset.step ?? ''`); got != strconv.Itoa(step) {
			t.Errorf("clicked step %d: the strip selects step %q", step, got)
		}
		if got := text(tab, "#timeline-readout"); !strings.HasPrefix(got, "step "+strconv.Itoa(step+1)+" ") {
			t.Errorf("clicked step %d: readout %q", step, got)
		}
	}
}
