package softmax_test

import (
	"fmt"
	"math"

	"nexttoken/engine/softmax"
)

// The worked example: six logits at temperature 1. The largest logit, 3.1,
// is subtracted before exponentiating, so the largest exponential is 1 and
// the sum is at least 1.
func ExampleCompute() {
	tr, err := softmax.Compute([]float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("max %.1f, sum %.4f\n", tr.Max, tr.Sum)
	fmt.Println("token  logit  shifted     exp    prob")
	for i := range tr.Logits {
		fmt.Printf("%5d %6.1f %8.1f %7.4f %7.4f\n", i, tr.Logits[i], tr.Shifted[i], tr.Exp[i], tr.Probs[i])
	}
	// Output:
	// max 3.1, sum 1.2437
	// token  logit  shifted     exp    prob
	//     0   -2.1     -5.2  0.0055  0.0044
	//     1    0.3     -2.8  0.0608  0.0489
	//     2    3.1      0.0  1.0000  0.8041
	//     3    0.8     -2.3  0.1003  0.0806
	//     4    0.1     -3.0  0.0498  0.0400
	//     5   -0.5     -3.6  0.0273  0.0220
}

// Temperature divides the logits before the softmax: below 1 it sharpens the
// distribution, above 1 it flattens it.
func ExampleCompute_temperature() {
	logits := []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5}
	for _, temp := range []float64{0.5, 1, 2, 10} {
		tr, err := softmax.Compute(logits, temp)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("T=%-4g p[2]=%.4f p[0]=%.4f\n", temp, tr.Probs[2], tr.Probs[0])
	}
	// Output:
	// T=0.5  p[2]=0.9833 p[0]=0.0000
	// T=1    p[2]=0.8041 p[0]=0.0044
	// T=2    p[2]=0.4936 p[0]=0.0367
	// T=10   p[2]=0.2182 p[0]=0.1297
}

// A logit of −Inf masks its token; huge logits are safe because only their
// differences are exponentiated.
func ExampleCompute_masked() {
	tr, err := softmax.Compute([]float64{1e4, math.Inf(-1), 1e4 - 1}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("shifted %v\nprobs %.4f\n", tr.Shifted, tr.Probs)
	// Output:
	// shifted [0 -Inf -1]
	// probs [0.7311 0.0000 0.2689]
}
