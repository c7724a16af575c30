package softmax_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"nexttoken/engine/internal/expf"
	"nexttoken/engine/softmax"
)

var inf = math.Inf(1)

// logistic is the two-token softmax: the probability of a token whose logit
// exceeds the other's by d.
func logistic(d float64) float64 { return 1 / (1 + math.Exp(-d)) }

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestComputeWorkedExample(t *testing.T) {
	logits := []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	// The differences ℓᵢ − 3.1, written out by hand.
	d := []float64{-5.2, -2.8, 0, -2.3, -3.0, -3.6}
	var z float64
	for _, v := range d {
		z += math.Exp(v)
	}

	tr, err := softmax.Compute(logits, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Max != 3.1 {
		t.Errorf("Max = %v, want 3.1", tr.Max)
	}
	if !near(tr.Sum, z, 1e-14) {
		t.Errorf("Sum = %v, want %v", tr.Sum, z)
	}
	for i := range logits {
		if !near(tr.Shifted[i], d[i], 1e-14) {
			t.Errorf("Shifted[%d] = %v, want %v", i, tr.Shifted[i], d[i])
		}
		if want := math.Exp(d[i]); !near(tr.Exp[i], want, 1e-14) {
			t.Errorf("Exp[%d] = %v, want %v", i, tr.Exp[i], want)
		}
		if want := math.Exp(d[i]) / z; !near(tr.Probs[i], want, 1e-14) {
			t.Errorf("Probs[%d] = %v, want %v", i, tr.Probs[i], want)
		}
	}
}

func TestCompute(t *testing.T) {
	for _, tc := range []struct {
		name   string
		logits []float64
		temp   float64
		want   []float64
		exact  bool // want is exact by construction
	}{
		{"uniform", []float64{0.7, 0.7, 0.7}, 1, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, true},
		{"uniform hot", []float64{-5, -5, -5, -5, -5}, 0.37, []float64{0.2, 0.2, 0.2, 0.2, 0.2}, true},
		{"single token", []float64{42}, 1, []float64{1}, true},
		{"single unmasked", []float64{-inf, 3, -inf}, 2, []float64{0, 1, 0}, true},
		{"masked", []float64{1, -inf, 0}, 1, []float64{logistic(1), 0, logistic(-1)}, false},
		{"large", []float64{1e4, 1e4 - 1}, 1, []float64{logistic(1), logistic(-1)}, false},
		{"large negative", []float64{-1e4, -1e4 - 2}, 1, []float64{logistic(2), logistic(-2)}, false},
		{"opposite extremes", []float64{1e4, -1e4}, 1, []float64{1, 0}, true},
		{"temperature 2", []float64{0, 2}, 2, []float64{logistic(-1), logistic(1)}, false},
		{"temperature 0.5", []float64{0, 1}, 0.5, []float64{logistic(-2), logistic(2)}, false},
		{"underflow", []float64{0, -800}, 1, []float64{1, 0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := softmax.Compute(tc.logits, tc.temp)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.want {
				got := tr.Probs[i]
				if tc.exact && got != want || !near(got, want, 1e-15) {
					t.Errorf("Probs[%d] = %v, want %v", i, got, want)
				}
			}
			checkInvariants(t, tr)
		})
	}
}

// checkInvariants checks what holds for every trace whatever the input.
func checkInvariants(t *testing.T, tr *softmax.Trace) {
	t.Helper()
	var total float64
	atMax := false
	for i, d := range tr.Shifted {
		if d > 0 {
			t.Errorf("Shifted[%d] = %v > 0", i, d)
		}
		atMax = atMax || d == 0
		if e := tr.Exp[i]; e < 0 || e > 1 {
			t.Errorf("Exp[%d] = %v outside [0, 1]", i, e)
		}
		total += tr.Probs[i]
	}
	if !atMax {
		t.Error("no Shifted value is 0")
	}
	if tr.Sum < 1 {
		t.Errorf("Sum = %v < 1", tr.Sum)
	}
	if !near(total, 1, 1e-15*float64(len(tr.Probs))) {
		t.Errorf("probabilities sum to %v", total)
	}
}

func TestComputeErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		logits []float64
		temp   float64
		want   string // in the error message
	}{
		{"empty", nil, 1, "no logits"},
		{"NaN logit", []float64{0, 1, 2, nan}, 1, "logit 3 is NaN"},
		{"+Inf logit", []float64{0, inf, 2}, 1, "logit 1 is +Inf"},
		{"all masked", []float64{-inf, -inf}, 1, "masked"},
		{"zero temperature", []float64{1}, 0, "temperature"},
		{"negative temperature", []float64{1}, -1, "temperature"},
		{"NaN temperature", []float64{1}, nan, "temperature"},
		{"+Inf temperature", []float64{1}, inf, "temperature"},
		{"-Inf temperature", []float64{1}, -inf, "temperature"},
		{"overflow", []float64{0, 1e10}, 1e-300, "logit 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := softmax.Compute(tc.logits, tc.temp)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestComputeCopiesLogits(t *testing.T) {
	logits := []float64{1, 2, 3}
	tr, err := softmax.Compute(logits, 1)
	if err != nil {
		t.Fatal(err)
	}
	logits[0] = 100
	if tr.Logits[0] != 1 {
		t.Errorf("Trace.Logits follows the caller's slice")
	}
}

// TestTraceCompute: a Trace computed again and again, over vectors of
// other lengths, holds the numbers a fresh one does, and once grown
// allocates nothing.
func TestTraceCompute(t *testing.T) {
	var reused softmax.Trace
	for _, tc := range []struct {
		logits []float64
		temp   float64
	}{
		{[]float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}, 1},
		{[]float64{1, -inf, 0}, 0.5},
		{[]float64{0, 1e4, -1e4, 7, 7, 7, -inf, 2.5}, 3},
		{[]float64{42}, 1},
	} {
		want, err := softmax.Compute(tc.logits, tc.temp)
		if err != nil {
			t.Fatal(err)
		}
		if err := reused.Compute(tc.logits, tc.temp); err != nil || !reflect.DeepEqual(&reused, want) {
			t.Errorf("Compute(%v, %v) again: %+v, %v\nwant %+v", tc.logits, tc.temp, reused, err, want)
		}
	}
	logits := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	if n := testing.AllocsPerRun(10, func() { _ = reused.Compute(logits, 2) }); n != 0 {
		t.Errorf("%v allocations a softmax", n)
	}
}

// runcSoftmax is run.c's softmax transcribed line by line, in float32,
// with expf.Exp for C's expf.
func runcSoftmax(x []float32) {
	maxVal := x[0]
	for i := 1; i < len(x); i++ {
		if x[i] > maxVal {
			maxVal = x[i]
		}
	}
	var sum float32
	for i := range x {
		x[i] = expf.Exp(x[i] - maxVal)
		sum += x[i]
	}
	for i := range x {
		x[i] /= sum
	}
}

func TestFloat32(t *testing.T) {
	for _, tc := range []struct {
		name string
		x    []float32
	}{
		{"worked example", []float32{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}},
		{"uniform", []float32{3, 3, 3}},
		{"masked first", []float32{float32(-inf), 1, 2}},
		{"large", []float32{1e4, -1e4, 9999}},
		{"many", ramp(1000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := append([]float32(nil), tc.x...)
			softmax.Float32(got)
			want := append([]float32(nil), tc.x...)
			runcSoftmax(want)
			x64 := make([]float64, len(tc.x))
			for i, v := range tc.x {
				x64[i] = float64(v)
			}
			tr, err := softmax.Compute(x64, 1)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Errorf("p[%d] = %v, run.c computes %v", i, got[i], want[i])
				}
				if !near(float64(got[i]), tr.Probs[i], 1e-6) {
					t.Errorf("p[%d] = %v, float64 softmax gives %v", i, got[i], tr.Probs[i])
				}
			}
		})
	}
}

// ramp returns n logits spread over [−10, 10) in a scrambled order, so that
// the float32 sum accumulates rounding error.
func ramp(n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32((i*7919)%n)*20/float32(n) - 10
	}
	return x
}

// TestEntropy checks Entropy on distributions whose entropy is known in
// closed form.
func TestEntropy(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    []float64
		want float64
	}{
		{"certain", []float64{0, 1, 0}, 0},
		{"uniform over 4", []float64{0.25, 0.25, 0.25, 0.25}, math.Log(4)},
		{"uniform over 2 with a masked token", []float64{0.5, 0, 0.5}, math.Log(2)},
		{"a coin of p = 0.9", []float64{0.9, 0.1}, -0.9*math.Log(0.9) - 0.1*math.Log(0.1)},
	} {
		if got := softmax.Entropy(tc.p); !near(got, tc.want, 1e-15) {
			t.Errorf("%s: Entropy = %v, want %v", tc.name, got, tc.want)
		}
	}
}
