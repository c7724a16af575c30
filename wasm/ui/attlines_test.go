//go:build !js

package ui

import (
	"nexttoken/wasm/play"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// drawnLine is a line of the attention drawing: its position and weight.
var drawnLine = regexp.MustCompile(`<line class="att-line"[^>]* data-pos="(\d+)" data-w="([^"]+)"`)

// drawnLabel is a position's label in the attention drawing.
var drawnLabel = regexp.MustCompile(`<text class="att-label( faint)?"[^>]* data-pos="(\d+)">([^<]*)</text>`)

// TestAttentionLines draws the lines of the toy model (every position
// labelled) and of stories260K at 25 and 500 positions (the most
// attended labelled), for each layer and for the mean of the heads, the
// first and the last head: every line's weight is the engine's, the
// line of the largest weight goes to the position of the largest weight,
// lines go to the positions with at least 1% of it and no others, and the
// labels say the weights.
func TestAttentionLines(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spec      session.Spec
		positions int
	}{
		{"toy", toySpec(2), 4},
		{"stories260K", stories(20, sampler.DefaultSettings()), 25},
		{"stories260K 500", stories(495, sampler.Settings{Temperature: 1, Seed: 4}), 500},
	} {
		p := page(t, tc.spec, -1)
		m := p.s().Model()
		for l := range m.Layers {
			p.ctl.ShowLayer(l) // as the KV card's tab does
			s := p.s()
			if got := p.d().KV.Layer; got != l {
				t.Fatalf("%s: the detail holds layer %d, want %d", tc.name, got, l)
			}
			for _, head := range []int{0, 1, m.Heads} {
				what := tc.name + ", layer " + itoa(l) + ", head choice " + itoa(head)
				v := &AttentionLines{Heads: m.Heads, head: head}
				byID, _, text := paintOf(v, s)
				svg := byID["attention-lines-drawing"]
				want := wantWeights(p.d(), head)
				if len(want) != tc.positions {
					t.Fatalf("%s: the engine has %d weights, want %d", what, len(want), tc.positions)
				}
				checkLines(t, what, svg, want)
				if head == 0 {
					contains(t, what, text, "the mean of layer "+itoa(l)+"'s "+itoa(m.Heads)+" heads")
				} else {
					contains(t, what, text, "head "+itoa(head-1)+" of layer "+itoa(l))
				}
			}
		}
	}
}

// wantWeights are the engine's weights that head choice head (1 + a head,
// or 0 for the mean) draws in the layer d holds.
func wantWeights(d *play.Detail, head int) []float64 {
	heads := d.Attention
	w := make([]float64, len(heads[0]))
	for h, row := range heads {
		for pos, a := range row {
			switch {
			case head == 0:
				w[pos] += float64(a)
			case h == head-1:
				w[pos] = float64(a)
			}
		}
	}
	if head == 0 {
		for pos := range w {
			w[pos] /= float64(len(heads))
		}
	}
	return w
}

// checkLines checks the drawing svg against the weights want.
func checkLines(t *testing.T, what, svg string, want []float64) {
	t.Helper()
	peak, top := 0.0, 0
	for pos, a := range want {
		if a > peak {
			peak, top = a, pos
		}
	}
	drawn := map[int]float64{}
	bestPos, best := -1, -1.0
	for _, m := range drawnLine.FindAllStringSubmatch(svg, -1) {
		pos, _ := strconv.Atoi(m[1])
		a, err := strconv.ParseFloat(m[2], 32)
		if err != nil || pos >= len(want) {
			t.Fatalf("%s: a line to %s of weight %q", what, m[1], m[2])
		}
		if _, twice := drawn[pos]; twice {
			t.Errorf("%s: two lines to position %d", what, pos)
		}
		drawn[pos] = a
		if a > best {
			bestPos, best = pos, a
		}
		// The mean is the engine's weights summed in float64 and rounded
		// to float32 once.
		if float32(a) != float32(want[pos]) {
			t.Errorf("%s: the line to position %d has weight %v, the engine's is %v", what, pos, a, want[pos])
		}
	}
	if bestPos != top {
		t.Errorf("%s: the heaviest line goes to position %d (%v), the engine's largest weight is at %d (%v)", what, bestPos, best, top, peak)
	}
	for pos, a := range want {
		if _, ok := drawn[pos]; ok != (a >= linesFloor*peak) {
			t.Errorf("%s: position %d of weight %v (peak %v) has a line: %v", what, pos, a, peak, ok)
		}
	}
	labels := drawnLabel.FindAllStringSubmatch(svg, -1)
	attended := 0
	for _, a := range want {
		if a > 0 {
			attended++
		}
	}
	if wantLabels := min(attended, linesTop); len(want) <= linesAllLabelled {
		if len(labels) != len(want) {
			t.Errorf("%s: %d labels, want one a position, %d", what, len(labels), len(want))
		}
	} else if len(labels) != wantLabels {
		t.Errorf("%s: %d labels, want the %d most attended", what, len(labels), wantLabels)
	}
	for _, m := range labels {
		pos, _ := strconv.Atoi(m[2])
		if w := fixed(want[pos], 3); !strings.HasSuffix(m[3], " "+w) {
			t.Errorf("%s: position %d's label is %q, want its weight %s", what, pos, m[3], w)
		}
		if _, line := drawn[pos]; line == (m[1] != "") {
			t.Errorf("%s: position %d's label is faint: %v; it has a line: %v", what, pos, m[1] != "", line)
		}
		if len(want) > linesAllLabelled {
			// Only the most attended are labelled: none unlabelled weighs more.
			for other, a := range want {
				if a > want[pos] && !strings.Contains(svg, `data-pos="`+itoa(other)+`">`) {
					t.Errorf("%s: position %d (%v) is labelled, %d (%v) not", what, pos, want[pos], other, a)
				}
			}
		}
	}
}

// TestAttentionLinesPicker renders the choice of head: the mean first,
// then each head, the one shown selected; the KV card holds it, a head
// of the model's a choice.
func TestAttentionLinesPicker(t *testing.T) {
	p := page(t, stories(2, sampler.DefaultSettings()), -1)
	html, _ := render(kvCard(p.s(), nil, p.ctl))
	if n := strings.Count(html, "<option"); n != p.s().Model().Heads+1 {
		t.Errorf("the KV card offers %d choices of head, want the mean and %d heads", n, p.s().Model().Heads)
	}
	contains(t, "the KV card", html, `id="attention-lines"`, `id="attention-lines-drawing"`)
	for _, tc := range []struct {
		head     int
		selected string
	}{{0, `value="mean"`}, {3, `value="2"`}} {
		html, text := render(&AttentionLines{Heads: 8, head: tc.head})
		if n := strings.Count(html, "<option"); n != 9 {
			t.Errorf("head choice %d: %d options, want the mean and 8 heads", tc.head, n)
		}
		contains(t, "the head picker", html, `id="attention-head"`, `<option selected `+tc.selected+`>`)
		contains(t, "the head picker", text, "all heads (mean)", "head 7")
	}
}
