//go:build !js

package main

import (
	"fmt"
	"math"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// attentionQuery is the session the attention lines' tests open.
const attentionQuery = "model=stories260K&prompt=Once%20upon%20a%20time&steps=3&temperature=1&seed=3"

// drawnAttention is a page script: the attention lines drawn, each its
// position and weight.
const drawnAttention = `[...document.querySelectorAll('#attention-lines-svg .att-line')].map(l => ({Pos: +l.dataset.pos, W: +l.dataset.w}))`

// TestAttentionLinesMatchEngine steps stories260K three times, then picks
// layers and heads (and the mean of the heads) in the KV card: the lines
// drawn are the weights of the engine run natively on the same session,
// the heaviest to the position the engine weighs most, and every position
// with at least 1% of the largest weight has a line. A step redraws them
// from the new query; the head's select takes the keyboard's focus.
func TestAttentionLinesMatchEngine(t *testing.T) {
	tab := openPage(t, "/?"+attentionQuery)
	const steps = 3
	for range steps {
		rows := text(tab, "#kv-rows")
		click(tab, "#step")
		waitFor(tab, `(document.getElementById('kv-rows')?.textContent ?? '') !== `+jsString(rows))
	}
	drawn(tab)

	state, dropped := link.Open(attentionQuery, "")
	if len(dropped) > 0 {
		t.Fatalf("the query drops %+v", dropped)
	}
	s, err := session.New(state.Spec, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	for range steps {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := text(tab, "#kv-rows"), fmt.Sprint(len(s.Trace().Prompt)+len(s.Trace().Steps)); got != want {
		t.Fatalf("the page's cache has %s rows, the native session's step on display reads %s", got, want)
	}
	d, err := s.Detail(len(s.Trace().Steps))
	if err != nil {
		t.Fatal(err)
	}
	for _, pick := range []struct {
		layer int
		head  string // the select's value
		says  string
	}{
		{0, "mean", "the mean of layer 0's 8 heads"},
		{2, "3", "head 3 of layer 2"},
		{4, "7", "head 7 of layer 4"},
		{4, "mean", "the mean of layer 4's 8 heads"},
	} {
		what := pick.says
		click(tab, `#kv .tab[data-layer="`+fmt.Sprint(pick.layer)+`"]`)
		setInput(tab, "#attention-head", pick.head)
		waitFor(tab, `(document.getElementById('attention-lines-hint')?.textContent ?? '').includes(`+jsString(pick.says)+`)`)
		lines := evaluate[[]struct {
			Pos int
			W   float64
		}](tab, drawnAttention)
		want := engineWeights(d, pick.layer, pick.head)
		compareLines(t, what, lines, want)
	}
	// A step redraws the lines from the new query, the head kept.
	rows := text(tab, "#kv-rows")
	click(tab, "#step")
	waitFor(tab, `(document.getElementById('attention-lines-hint')?.textContent ?? '').includes('(position `+rows+`, left)')`)
	if got := evaluate[string](tab, `document.getElementById('attention-head').value`); got != "mean" {
		t.Errorf("after a step the head's select reads %q, want the mean as chosen", got)
	}
	if !evaluate[bool](tab, `(document.getElementById('attention-head').focus(), document.activeElement?.id === 'attention-head')`) {
		t.Errorf("the head's select does not take the keyboard's focus")
	}
}

// engineWeights are the weights of layer l's head (a number) or of the
// mean of its heads ("mean") in d.
func engineWeights(d *session.Detail, l int, head string) []float64 {
	heads := d.Attention[l]
	w := make([]float64, len(heads[0]))
	for h, row := range heads {
		for pos, a := range row {
			if head == "mean" || fmt.Sprint(h) == head {
				w[pos] += float64(a)
			}
		}
	}
	if head == "mean" {
		for pos := range w {
			w[pos] /= float64(len(heads))
		}
	}
	return w
}

// compareLines checks the lines drawn against the engine's weights.
func compareLines(t *testing.T, what string, lines []struct {
	Pos int
	W   float64
}, want []float64) {
	t.Helper()
	if len(lines) == 0 {
		t.Fatalf("%s: no lines drawn", what)
	}
	top, best := 0, lines[0]
	for pos, a := range want {
		if a > want[top] {
			top = pos
		}
	}
	seen := map[int]bool{}
	for _, l := range lines {
		if l.Pos < 0 || l.Pos >= len(want) {
			t.Fatalf("%s: a line to position %d of %d", what, l.Pos, len(want))
		}
		seen[l.Pos] = true
		if math.Abs(l.W-want[l.Pos]) > browserRounding*10 {
			t.Errorf("%s: the line to position %d weighs %v, the native engine's %v", what, l.Pos, l.W, want[l.Pos])
		}
		if l.W > best.W {
			best = l
		}
	}
	if best.Pos != top {
		t.Errorf("%s: the heaviest line goes to position %d (%v), the native engine weighs position %d most (%v)", what, best.Pos, best.W, top, want[top])
	}
	// Away from the 1% line, where the last bits could tip a position
	// over it, a position has a line exactly when it weighs 1% or more.
	for pos, a := range want {
		if a > 0.0101*want[top] && !seen[pos] || a < 0.0099*want[top] && seen[pos] {
			t.Errorf("%s: position %d weighs %v of the largest %v; drawn: %v", what, pos, a, want[top], seen[pos])
		}
	}
}

// TestAttentionLinesNarrowDark embeds the KV card (view=kv) at 375 px in
// the dark theme: the lines are drawn inside the window, in the dark
// theme's accent, and the head's select fits.
func TestAttentionLinesNarrowDark(t *testing.T) {
	tab := openPageAs(t, "/?embed=1&view=kv&theme=dark&"+attentionQuery, screen{width: 375, height: 800, dark: true})
	waitFor(tab, `document.querySelectorAll('#attention-lines-svg .att-line').length > 0`)
	drawn(tab)
	got := evaluate[struct {
		Right, Select, Width float64
		Stroke               string
	}](tab, `(() => {
		const svg = document.getElementById('attention-lines-svg'), line = svg.querySelector('.att-line');
		return {Right: svg.getBoundingClientRect().right, Select: document.getElementById('attention-head').getBoundingClientRect().right,
			Width: document.documentElement.clientWidth, Stroke: getComputedStyle(line).stroke};
	})()`)
	if got.Right > got.Width || got.Select > got.Width {
		t.Errorf("at 375 px the drawing ends at %v px and the select at %v px, past the page's %v", got.Right, got.Select, got.Width)
	}
	if got.Stroke != "rgb(122, 162, 255)" {
		t.Errorf("in the dark theme the lines are %s, want the dark accent rgb(122, 162, 255)", got.Stroke)
	}
}
