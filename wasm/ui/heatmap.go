package ui

import (
	"math"
	"slices"
)

// heatmap draws rows of numbers on a canvas, one pixel per number, and
// remembers what it drew: when the rows only grew, it draws just the new
// ones, so a cache of 500 positions costs one row per step, not 500.
type heatmap struct {
	state  drawState
	rows   int // rows drawn
	height int // the canvas's height
	dark   bool
	row    []float32                                       // scratch
	rgba   []byte                                          // scratch
	draw   func(id string, w, h, y int, rgba []byte) error // drawRows, or a test's canvas
}

// drawState is what the drawn rows depend on besides their count: when it
// changes, every row is drawn again.
type drawState struct {
	epoch, layer int
	peak         float64
	width        int // a canvas whose width changes is cleared
	version      int // anything else the rows depend on
}

// heatmapBudget is how many numbers an update colours at most: a prompt
// of hundreds of positions is drawn over a few frames, top rows first,
// not in one long task of the page's.
const heatmapBudget = 1 << 14

// update draws rows of width w onto the canvas with the given id, n rows in
// all on a canvas of height rows, rows(i, dst) appending row i to dst.
// Values are scaled by state.peak. It draws heatmapBudget numbers at most
// (a row at least), and reports whether rows are left for the next update.
func (m *heatmap) update(id string, state drawState, n, w, height int, dark bool, rows func(i int, dst []float32) []float32) (more bool) {
	from := m.rows
	// A new peak rescales every colour, and another history or a canvas of
	// another size (which clears it) needs every row again; a history that
	// only lost its last rows (an Undo) loses them from the picture.
	same := state == m.state && dark == m.dark && height == m.height
	if same && n < m.rows {
		if clearRows(id, n, m.rows-n) == nil {
			m.rows = n
			return false
		}
	}
	if !same || n < m.rows {
		from = 0
	}
	if from == n {
		return false
	}
	to := min(n, from+max(1, heatmapBudget/max(w, 1)))
	// The pixels' room at once: grown a row at a time, a prompt's few
	// hundred rows cost the page more in copies than in colours.
	m.rgba = slices.Grow(m.rgba[:0], (to-from)*w*4)
	for i := from; i < to; i++ {
		m.row = rows(i, m.row[:0])
		for _, v := range m.row {
			c := shade(float64(v), state.peak, dark)
			m.rgba = append(m.rgba, c[:]...)
		}
	}
	draw := m.draw
	if draw == nil {
		draw = drawRows
	}
	if err := draw(id, w, height, from, m.rgba); err != nil {
		m.rows = 0
		return false // the canvas is gone (the view changed); the next update redraws
	}
	m.state, m.rows, m.dark, m.height = state, to, dark, height
	return to < n
}

// shade is the colour of v on a scale from −peak (blue) through 0 (the
// card's background) to +peak (red), as RGBA.
func shade(v, peak float64, dark bool) [4]byte {
	bg := [3]float64{255, 255, 255}
	pos, neg := [3]float64{215, 48, 31}, [3]float64{43, 89, 195}
	if dark {
		bg, pos, neg = [3]float64{29, 31, 36}, [3]float64{255, 110, 90}, [3]float64{122, 162, 255}
	}
	t, to := 0.0, pos
	if peak > 0 {
		t = math.Abs(v) / peak
		if t > 1 {
			t = 1
		}
	}
	if v < 0 {
		to = neg
	}
	var c [4]byte
	for i := range 3 {
		c[i] = byte(roundUp(bg[i] + t*(to[i]-bg[i])))
	}
	c[3] = 255
	return c
}

// roundUp is math.Round for x ≥ 0, and NaN for NaN, which a heat map
// rounds a hundred thousand times: math.Round is a call in WebAssembly,
// math.Floor one instruction (and x − ⌊x⌋ is exact).
func roundUp(x float64) float64 {
	r := math.Floor(x)
	if x-r >= 0.5 {
		r++
	}
	return r
}
