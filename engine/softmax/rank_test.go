package softmax

import (
	"slices"
	"testing"
)

// TestTop checks Top against sorting the whole distribution.
func TestTop(t *testing.T) {
	p := []float64{0.1, 0, 0.3, 0.1, 0.2, 0.3, 0, 0.0001}
	ranked := []int{2, 5, 4, 0, 3, 7} // ties by id; zeros never
	for n := range 9 {
		want := ranked[:min(n, len(ranked))]
		if got := Top(p, n, nil); !slices.Equal(got, want) {
			t.Errorf("Top(%d) = %v, want %v", n, got, want)
		}
	}
}

// TestRank checks Rank against Top's ranking, ties and zeros included.
func TestRank(t *testing.T) {
	for _, p := range [][]float64{
		{0.1, 0, 0.3, 0.1, 0.2, 0.3, 0, 0.0001},
		{1},
		{0.25, 0.25, 0.25, 0.25},
	} {
		ranked := Top(p, len(p), nil)
		for place, id := range ranked {
			if got := Rank(p, id); got != place+1 {
				t.Errorf("Rank(%v, %d) = %d, want %d", p, id, got, place+1)
			}
		}
		for id, q := range p { // tokens of zero probability rank after all the others
			if q == 0 {
				if got := Rank(p, id); got <= len(ranked) {
					t.Errorf("Rank(%v, %d) = %d for a token of probability 0, want > %d", p, id, got, len(ranked))
				}
			}
		}
	}
}
