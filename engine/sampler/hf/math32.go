package hf

import (
	"cmp"
	"math"
	"slices"
)

// negInf is HF's filter_value, -float("Inf"), as a float32 score.
var negInf = float32(math.Inf(-1))

// exp32 is eˣ rounded to float32. torch's CPU kernels use SLEEF's vectorised
// expf, accurate to 1 ulp, so a result may differ from torch's in the last
// bit.
func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }

// sum32 is the sum of x accumulated in float64 and rounded to float32.
// torch sums float32 in float32 lanes (8 or 16 wide, as the CPU allows) and
// then across the lanes, so its sum depends on the machine; this one is the
// value those sums approximate.
func sum32(x []float32) float32 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return float32(s)
}

// softmax32 is torch.softmax of float32 scores on the CPU
// (aten/src/ATen/native/cpu/SoftMaxKernel.cpp, _vec_softmax_lastdim):
// m = max x, eᵢ = exp(xᵢ − m), then eᵢ · (1/Σe), the reciprocal taken once.
// The maximum must be finite.
func softmax32(x []float32) []float32 {
	m := slices.Max(x)
	p := make([]float32, len(x))
	for i, v := range x {
		p[i] = exp32(v - m)
	}
	inv := 1 / sum32(p)
	for i := range p {
		p[i] *= inv
	}
	return p
}

// logSumExp32 is log Σ exp(xᵢ) as torch computes it for float32
// (aten/src/ATen/native/ReduceOps.cpp, logsumexp): log Σ exp(xᵢ − m) + m.
func logSumExp32(x []float32) float32 {
	m := slices.Max(x)
	e := make([]float32, len(x))
	for i, v := range x {
		e[i] = exp32(v - m)
	}
	return float32(math.Log(float64(sum32(e)))) + m
}

// logSoftmax32 is torch.log_softmax of float32 scores on the CPU
// (_vec_log_softmax_lastdim): xᵢ − m − log Σ exp(x − m), subtracted in that
// order.
func logSoftmax32(x []float32) []float32 {
	m := slices.Max(x)
	e := make([]float32, len(x))
	for i, v := range x {
		e[i] = exp32(v - m)
	}
	ls := float32(math.Log(float64(sum32(e))))
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = (v - m) - ls
	}
	return out
}

// cumsum32 is torch.cumsum of float32 values on the CPU
// (ReduceOpsKernel.cpp, cumsum_cpu_kernel): the running sum is kept in
// at::acc_type<float, false>, which is double, and each prefix is rounded to
// float32.
func cumsum32(x []float32) []float32 {
	out := make([]float32, len(x))
	var s float64
	for i, v := range x {
		s += float64(v)
		out[i] = float32(s)
	}
	return out
}

// descending returns the token ids by descending key, ties by ascending id.
// torch.sort and torch.topk leave the order of equal keys unspecified (on
// the CPU: std::sort, or x86-simd-sort's quicksort); this package fixes it
// so that, of tokens that tie, the lower ids come first.
func descending(key []float32) []int {
	ids := make([]int, len(key))
	for i := range ids {
		ids[i] = i
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(key[b], key[a]) })
	return ids
}

// ascending returns the token ids by ascending key, ties by ascending id.
func ascending(key []float32) []int {
	ids := make([]int, len(key))
	for i := range ids {
		ids[i] = i
	}
	slices.SortStableFunc(ids, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	return ids
}

// kthLargest is torch.topk(x, k)[0][-1], the k-th largest value
// (1 ≤ k ≤ len(x)); only the value is used, so the order of ties does not
// matter.
func kthLargest(x []float32, k int) float32 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)-k]
}

// mask returns scores with the tokens where remove is true set to −Inf,
// as scores.masked_fill(indices_to_remove, filter_value).
func mask(scores []float32, remove []bool) []float32 {
	out := slices.Clone(scores)
	for i, r := range remove {
		if r {
			out[i] = negInf
		}
	}
	return out
}
