package softmax

import (
	"math"
	"testing"
)

// TestWiden checks that Widen gives every float32 exactly, in dst's memory
// when it has the room and in new memory when it has not.
func TestWiden(t *testing.T) {
	x := []float32{0, -1.5, math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Inf(-1)), 0.1}
	buf := make([]float64, 2, 16)
	got := Widen(buf, x)
	if len(got) != len(x) || &got[0] != &buf[:1][0] {
		t.Fatalf("Widen gave %d values at %p, want %d in dst's memory %p", len(got), &got[0], len(x), &buf[0])
	}
	for i, v := range x {
		if got[i] != float64(v) {
			t.Errorf("value %d: %v, want %v", i, got[i], float64(v))
		}
	}
	if again := Widen(got, x[:1]); len(again) != 1 || again[0] != 0 {
		t.Errorf("Widen of one value: %v", again)
	}
	if fresh := Widen(nil, x); len(fresh) != len(x) || fresh[5] != float64(float32(0.1)) {
		t.Errorf("Widen(nil, x) = %v", fresh)
	}
	if allocs := testing.AllocsPerRun(10, func() { got = Widen(got, x) }); allocs != 0 {
		t.Errorf("Widen into a slice with room allocates %v times", allocs)
	}
}
