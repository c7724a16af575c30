package ui

import (
	"slices"
	"testing"
)

// fakeCanvas records the rows a heat map draws, as drawRows would paint them.
type fakeCanvas struct {
	rows  map[int][]byte // by row
	calls []int          // rows drawn by each call
}

func (c *fakeCanvas) draw(_ string, w, _, y int, rgba []byte) error {
	n := len(rgba) / (4 * w)
	for i := range n {
		c.rows[y+i] = slices.Clone(rgba[4*w*i : 4*w*(i+1)])
	}
	c.calls = append(c.calls, n)
	return nil
}

// TestHeatmapBudget draws a heat map of more numbers than an update
// colours: it takes several updates, each within the budget, the top rows
// first, and ends with every row drawn; a row added later is drawn alone,
// and a new scale draws every row again, within the budget again.
func TestHeatmapBudget(t *testing.T) {
	value := func(i, j int) float32 { return float32((i*31+j*7)%17 - 8) }
	rowsOf := func(i int, dst []float32) []float32 {
		for j := range 192 {
			dst = append(dst, value(i, j))
		}
		return dst
	}
	for _, tc := range []struct {
		name    string
		n, w    int
		updates []int // rows each update draws
	}{
		{"a prompt of 300 positions, 192 numbers each", 300, 192, chunks(300, heatmapBudget/192)},
		{"a narrow map: all at once", 300, 8, []int{300}},
		{"rows wider than the budget: one an update", 3, heatmapBudget + 1, []int{1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &fakeCanvas{rows: map[int][]byte{}}
			m := &heatmap{draw: c.draw}
			state := drawState{peak: 8, width: tc.w}
			rows := func(i int, dst []float32) []float32 {
				for j := range tc.w {
					dst = append(dst, value(i, j))
				}
				return dst
			}
			for k := range tc.updates {
				more := m.update("c", state, tc.n, tc.w, 512, false, rows)
				if want := k < len(tc.updates)-1; more != want {
					t.Errorf("update %d: more %v, want %v", k, more, want)
				}
			}
			if !slices.Equal(c.calls, tc.updates) {
				t.Errorf("rows drawn by each update %v, want %v", c.calls, tc.updates)
			}
			if m.update("c", state, tc.n, tc.w, 512, false, rows) || len(c.calls) != len(tc.updates) {
				t.Errorf("a map drawn whole draws again: %v", c.calls)
			}
			for i := range tc.n {
				for j := range tc.w {
					if got, want := [4]byte(c.rows[i][4*j:]), shade(float64(value(i, j)), 8, false); got != want {
						t.Fatalf("row %d number %d: %v, want %v", i, j, got, want)
					}
				}
			}
		})
	}
	// Growing by a row draws that row; a new peak draws them all again.
	c := &fakeCanvas{rows: map[int][]byte{}}
	m := &heatmap{draw: c.draw}
	state := drawState{peak: 8, width: 192}
	for m.update("c", state, 300, 192, 512, false, rowsOf) {
	}
	c.calls = nil
	if m.update("c", state, 301, 192, 512, false, rowsOf) || !slices.Equal(c.calls, []int{1}) {
		t.Errorf("a new row: updates drew %v, want [1]", c.calls)
	}
	c.calls = nil
	state.peak = 9
	for m.update("c", state, 301, 192, 512, false, rowsOf) {
	}
	if want := chunks(301, heatmapBudget/192); !slices.Equal(c.calls, want) {
		t.Errorf("a new peak: updates drew %v, want %v", c.calls, want)
	}
	if got, want := [4]byte(c.rows[300][4*5:]), shade(float64(value(300, 5)), 9, false); got != want {
		t.Errorf("the last row after a new peak: %v, want %v", got, want)
	}
}

// chunks are the rows of n drawn per rows at a time.
func chunks(n, per int) []int {
	var c []int
	for ; n > 0; n -= per {
		c = append(c, min(n, per))
	}
	return c
}
