package ui

import (
	"strings"
	"testing"
)

// TestLinePath grows, shrinks and rescales a path: each time it is the
// path drawn afresh.
func TestLinePath(t *testing.T) {
	ys := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	afresh := func(scale float64, n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteString(" L")
			} else {
				b.WriteString("M")
			}
			b.WriteString(num1(float64(i)) + " " + num1(ys[i]*scale))
		}
		return b.String()
	}
	var p linePath[float64]
	for _, step := range []struct {
		scale float64
		n     int
	}{{1, 3}, {1, 5}, {1, 2}, {1, 8}, {2, 8}, {2, 0}, {2, 4}, {1, 4}} {
		got := p.update(step.scale, step.n, func(i int) (float64, float64) { return float64(i), ys[i] * step.scale })
		if want := afresh(step.scale, step.n); got != want {
			t.Errorf("scale %v, %d points: %q, want %q", step.scale, step.n, got, want)
		}
	}
}
