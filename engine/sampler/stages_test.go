package sampler

import (
	"math"
	"slices"
	"testing"
)

// dyadic is a hand-made distribution whose partial sums are exact:
// sorted, it is token 1 (1/2), 2 (1/4), 0 (1/8), then 3 and 4 tied (1/16).
var dyadic = []float64{0.125, 0.5, 0.25, 0.0625, 0.0625}

// checkFilter checks that st keeps exactly the tokens in kept: the others
// of nonzero probability are Removed with their mass, and the kept ones are
// renormalised.
func checkFilter(t *testing.T, st Stage, p []float64, kept []int) {
	t.Helper()
	var keptMass, removedMass float64
	var removed []int
	for i, q := range p {
		if slices.Contains(kept, i) {
			keptMass += q
		} else if q > 0 {
			removed = append(removed, i)
			removedMass += q
		}
	}
	if !slices.Equal(st.Removed, removed) {
		t.Errorf("Removed = %v, want %v", st.Removed, removed)
	}
	if math.Abs(st.RemovedMass-removedMass) > 1e-15 {
		t.Errorf("RemovedMass = %v, want %v", st.RemovedMass, removedMass)
	}
	for i, q := range p {
		want := 0.0
		if slices.Contains(kept, i) {
			want = q / keptMass
		}
		if math.Abs(st.Probs[i]-want) > 1e-15 {
			t.Errorf("Probs[%d] = %v, want %v", i, st.Probs[i], want)
		}
	}
}

func TestTopK(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    []float64
		k    int
		kept []int
	}{
		{"k=1", dyadic, 1, []int{1}},
		{"k=2", dyadic, 2, []int{1, 2}},
		{"tie broken by lower id", dyadic, 4, []int{0, 1, 2, 3}},
		{"k = vocab", dyadic, 5, []int{0, 1, 2, 3, 4}},
		{"k > vocab", dyadic, 100, []int{0, 1, 2, 3, 4}},
		{"all tied", []float64{0.25, 0.25, 0.25, 0.25}, 2, []int{0, 1}},
		{"masked tokens are not candidates", []float64{0, 0.5, 0, 0.5}, 3, []int{1, 3}},
		{"single token", []float64{1}, 1, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := topK(tc.p, tc.k)
			if st.Name != "top_k" {
				t.Errorf("Name = %q", st.Name)
			}
			checkFilter(t, st, tc.p, tc.kept)
		})
	}
}

func TestTopP(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    []float64
		pp   float64
		kept []int
	}{
		{"below the top token", dyadic, 0.1, []int{1}},
		{"exactly the top token", dyadic, 0.5, []int{1}},
		{"just above the top token", dyadic, math.Nextafter(0.5, 1), []int{1, 2}},
		{"exactly two tokens", dyadic, 0.75, []int{1, 2}},
		{"tie broken by lower id", dyadic, 0.9, []int{0, 1, 2, 3}},
		{"everything", dyadic, 0.99, []int{0, 1, 2, 3, 4}},
		{"masked tokens are not candidates", []float64{0, 0.75, 0, 0.25}, 0.8, []int{1, 3}},
		{"single token", []float64{1}, 0.5, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := topP(tc.p, tc.pp)
			if st.Name != "top_p" {
				t.Errorf("Name = %q", st.Name)
			}
			checkFilter(t, st, tc.p, tc.kept)
		})
	}
}

func TestMinP(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    []float64
		m    float64
		kept []int
	}{
		{"half of the max", dyadic, 0.5, []int{1, 2}},
		{"quarter of the max, boundary kept", dyadic, 0.25, []int{0, 1, 2}},
		{"all but the max", dyadic, 1, []int{1}},
		{"tied maxima survive m=1", []float64{0.4, 0.4, 0.2}, 1, []int{0, 1}},
		{"tiny m keeps all", dyadic, 1e-9, []int{0, 1, 2, 3, 4}},
		{"masked tokens are not candidates", []float64{0, 0.75, 0, 0.25}, 1e-9, []int{1, 3}},
		{"single token", []float64{1}, 1, []int{0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := minP(tc.p, tc.m)
			if st.Name != "min_p" {
				t.Errorf("Name = %q", st.Name)
			}
			checkFilter(t, st, tc.p, tc.kept)
		})
	}
}

func TestPenalise(t *testing.T) {
	inf := math.Inf(1)
	logits := []float64{2, -1, 0, 3, -inf, 5}
	for _, tc := range []struct {
		name    string
		history []int
		r       float64
		want    []float64
		changed []int
	}{
		{"no history", nil, 2, logits, nil},
		{"signs", []int{0, 1}, 2, []float64{1, -2, 0, 3, -inf, 5}, []int{0, 1}},
		{"repeats count once", []int{0, 0, 0, 5, 5}, 2, []float64{1, -1, 0, 3, -inf, 2.5}, []int{0, 5}},
		{"zero and masked stay", []int{2, 4}, 2, logits, nil},
		{"r < 1 favours repeats", []int{0, 1, 3}, 0.5, []float64{4, -0.5, 0, 6, -inf, 5}, []int{0, 1, 3}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := penalise(logits, tc.history, tc.r)
			if st.Name != "repetition_penalty" {
				t.Errorf("Name = %q", st.Name)
			}
			if !slices.Equal(st.Logits, tc.want) {
				t.Errorf("Logits = %v, want %v", st.Logits, tc.want)
			}
			if !slices.Equal(st.Changed, tc.changed) {
				t.Errorf("Changed = %v, want %v", st.Changed, tc.changed)
			}
		})
	}
	if logits[0] != 2 {
		t.Error("penalise modified its input")
	}
}

func TestArgmax(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		x    []float64
		want int
	}{
		{[]float64{7}, 0},
		{[]float64{1, 3, 3, 0}, 1},
		{[]float64{2, 2, 2}, 0},
		{[]float64{-inf, -inf, -5}, 2},
		{[]float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}, 2},
	} {
		if got := argmax(tc.x); got != tc.want {
			t.Errorf("argmax(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

// TestDrawSearch checks the binary search of draw against the linear scan
// of run.c's sample_mult, including targets on and beyond the boundaries.
func TestDrawSearch(t *testing.T) {
	cdf := []float32{0.25, 0.25, 0.5, 0.75, 1}
	order := []int{10, 11, 12, 13, 14}
	for _, target := range []float32{0, 0.1, 0.25, 0.3, 0.5, 0.74, 0.75, 0.99, 1, 1.5} {
		want := len(cdf) - 1
		for i, c := range cdf {
			if target < c {
				want = i
				break
			}
		}
		d := draw(order, cdf, 0.5, target)
		if d.Index != want {
			t.Errorf("target %v: Index %d, want %d", target, d.Index, want)
		}
	}
}
