package llamacpp

import "math"

// byLogit is llama.cpp's comparator: a goes first if its logit is larger.
func byLogit(a, b Token) bool { return a.Logit > b.Logit }

// partialSortInPlace is llama_token_data_array_partial_sort_inplace
// (src/llama-sampler.cpp at 34af94cd): the
// array shrinks to its best n tokens, sorted by descending logit, with
// std::partial_sort up to 128 and the bucket sort above.
func partialSortInPlace(a *array, n int) {
	if n <= 128 {
		stdPartialSort(a.data, n, byLogit)
	} else {
		copy(a.data, partialSort(a.data, n))
	}
	a.data = a.data[:n]
	a.sorted = true
}

// Buckets of llama_token_data_array_partial_sort: 128 over logits
// [−10, 10), computed in float32.
const (
	nBuckets    = 128
	bucketScale = float32(nBuckets) / 20 // 6.4f
	bucketInter = 10 * bucketScale       // 64.0f
)

// partialSort is llama_token_data_array_partial_sort (src/llama-sampler.cpp
// at 34af94cd), which leaves cur
// alone: the tokens are spread over the buckets in array order, the
// buckets above the one where the best n end are sorted whole with
// std::sort, that one with std::partial_sort; the rest of it stays in heap
// select's order. The result holds every token of those buckets.
func partialSort(cur []Token, n int) []Token {
	var histo [nBuckets]int
	idx := make([]uint8, len(cur))
	for i, t := range cur {
		b := bucket(t.Logit)
		idx[i] = uint8(b)
		histo[b]++
	}
	have, ib := 0, nBuckets-1
	for ; ib >= 0; ib-- {
		have += histo[ib]
		if have >= n {
			break
		}
	}
	res := make([]Token, have)
	var start [nBuckets]int
	pos := 0
	for j := nBuckets - 1; j >= ib; j-- {
		start[j] = pos
		pos += histo[j]
	}
	for i, t := range cur {
		if j := int(idx[i]); j >= ib {
			res[start[j]] = t
			start[j]++
		}
	}
	pos, done := 0, 0
	for j := nBuckets - 1; j > ib; j-- {
		stdSort(res[pos:pos+histo[j]], byLogit)
		pos += histo[j]
		done += histo[j]
	}
	stdPartialSort(res[pos:pos+histo[ib]], n-done, byLogit)
	return res
}

// bucket is int(bucket_scale·ℓ + bucket_inter) clamped to [0, 127]. The
// conversion is x86's cvttss2si: NaN and anything out of int32's range
// (−Inf, huge logits) give INT_MIN, so bucket 0.
func bucket(l float32) int {
	v := float32(bucketScale*l) + bucketInter // unfused, as baseline x86-64
	b := math.MinInt32
	if v > math.MinInt32-1 && v < math.MaxInt32+1 {
		b = int(v) // truncates toward zero
	}
	return max(0, min(nBuckets-1, b))
}
