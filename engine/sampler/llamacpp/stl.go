package llamacpp

import "math/bits"

// llama.cpp sorts with std::sort and std::partial_sort, which are not
// stable: the order of equal logits, and so which of them top-k keeps and
// where the draw meets them, is that of the library's algorithm. These are
// libstdc++'s (GCC 12, bits/stl_algo.h and bits/stl_heap.h: introsort with
// median-of-three pivots, 16-element insertion sort, heap select), step for
// step, on a slice with a strict "goes first" order less.

// stdSort is std::sort (std::__sort).
func stdSort[T any](s []T, less func(a, b T) bool) {
	if len(s) == 0 {
		return
	}
	introsortLoop(s, 2*(bits.Len(uint(len(s)))-1), less)
	finalInsertionSort(s, less)
}

// stdPartialSort is std::partial_sort(first, first+middle, first+len(s)).
func stdPartialSort[T any](s []T, middle int, less func(a, b T) bool) {
	heapSelect(s, middle, less)
	sortHeap(s[:middle], less)
}

const sortThreshold = 16 // _S_threshold

func introsortLoop[T any](s []T, depth int, less func(a, b T) bool) {
	for len(s) > sortThreshold {
		if depth == 0 {
			stdPartialSort(s, len(s), less)
			return
		}
		depth--
		cut := partitionPivot(s, less)
		introsortLoop(s[cut:], depth, less)
		s = s[:cut]
	}
}

// partitionPivot is __unguarded_partition_pivot: the median of s[1],
// s[mid] and s[last] moves to s[0] and s[1:] is partitioned around it.
func partitionPivot[T any](s []T, less func(a, b T) bool) int {
	mid, last := len(s)/2, len(s)-1
	a, b, c := 1, mid, last
	var m int
	switch {
	case less(s[a], s[b]):
		switch {
		case less(s[b], s[c]):
			m = b
		case less(s[a], s[c]):
			m = c
		default:
			m = a
		}
	case less(s[a], s[c]):
		m = a
	case less(s[b], s[c]):
		m = c
	default:
		m = b
	}
	s[0], s[m] = s[m], s[0]
	first, end := 1, len(s)
	for {
		for less(s[first], s[0]) {
			first++
		}
		end--
		for less(s[0], s[end]) {
			end--
		}
		if first >= end {
			return first
		}
		s[first], s[end] = s[end], s[first]
		first++
	}
}

func finalInsertionSort[T any](s []T, less func(a, b T) bool) {
	if len(s) > sortThreshold {
		insertionSort(s[:sortThreshold], less)
		for i := sortThreshold; i < len(s); i++ {
			linearInsert(s, i, less)
		}
		return
	}
	insertionSort(s, less)
}

func insertionSort[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		if less(s[i], s[0]) {
			v := s[i]
			copy(s[1:i+1], s[:i])
			s[0] = v
		} else {
			linearInsert(s, i, less)
		}
	}
}

// linearInsert is __unguarded_linear_insert: s[i] moves down past the
// elements it goes before, with no bound check (s[0] stops it).
func linearInsert[T any](s []T, i int, less func(a, b T) bool) {
	v := s[i]
	for less(v, s[i-1]) {
		s[i] = s[i-1]
		i--
	}
	s[i] = v
}

// heapSelect is __heap_select: s[:middle] becomes a heap of the elements
// that go first, the rest is what it evicted, in the order left.
func heapSelect[T any](s []T, middle int, less func(a, b T) bool) {
	makeHeap(s[:middle], less)
	for i := middle; i < len(s); i++ {
		if less(s[i], s[0]) {
			popHeap(s[:middle], i, s, less)
		}
	}
}

func makeHeap[T any](h []T, less func(a, b T) bool) {
	n := len(h)
	if n < 2 {
		return
	}
	for parent := (n - 2) / 2; ; parent-- {
		adjustHeap(h, parent, n, h[parent], less)
		if parent == 0 {
			return
		}
	}
}

func sortHeap[T any](h []T, less func(a, b T) bool) {
	for last := len(h); last > 1; {
		last--
		popHeap(h[:last], last, h, less)
	}
}

// popHeap is __pop_heap(first, first+len(h), result): the top of h goes to
// all[result] and the element there is sifted into h.
func popHeap[T any](h []T, result int, all []T, less func(a, b T) bool) {
	v := all[result]
	all[result] = h[0]
	adjustHeap(h, 0, len(h), v, less)
}

func adjustHeap[T any](h []T, hole, n int, v T, less func(a, b T) bool) {
	top, child := hole, hole
	for child < (n-1)/2 {
		child = 2 * (child + 1)
		if less(h[child], h[child-1]) {
			child--
		}
		h[hole] = h[child]
		hole = child
	}
	if n&1 == 0 && child == (n-2)/2 {
		child = 2 * (child + 1)
		h[hole] = h[child-1]
		hole = child - 1
	}
	// __push_heap
	for parent := (hole - 1) / 2; hole > top && less(h[parent], v); parent = (hole - 1) / 2 {
		h[hole] = h[parent]
		hole = parent
	}
	h[hole] = v
}

// mt19937 is std::mt19937 (the 32-bit Mersenne Twister of C++11).
type mt19937 struct {
	x [624]uint32
	i int
	n uint64 // outputs given since seeding: with the seed, the whole state
}

// seed is mt19937::seed(s), as its constructor.
func (m *mt19937) seed(s uint32) {
	m.x[0] = s
	for i := 1; i < 624; i++ {
		m.x[i] = 1812433253*(m.x[i-1]^m.x[i-1]>>30) + uint32(i)
	}
	m.i, m.n = 624, 0
}

// discard is mt19937::discard(k): k outputs thrown away.
func (m *mt19937) discard(k uint64) {
	for range k {
		m.next()
	}
}

func (m *mt19937) next() uint32 {
	m.n++
	if m.i >= 624 {
		for k := 0; k < 624; k++ {
			y := m.x[k]&0x80000000 | m.x[(k+1)%624]&0x7fffffff
			v := m.x[(k+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.x[k] = v
		}
		m.i = 0
	}
	y := m.x[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// canonical64 is std::generate_canonical<double, 53> on mt19937, what
// std::uniform_real_distribution<double>(0, 1) returns: two draws, the
// second the high one, summed in double and divided by 2⁶⁴.
func (m *mt19937) canonical64() float64 {
	sum := float64(m.next())
	sum += float64(float64(m.next()) * 0x1p32) // exact; the conversion keeps it unfused
	if r := sum / 0x1p64; r < 1 {
		return r
	}
	return 1 - 0x1p-53 // std::nextafter(1.0, 0.0)
}

// canonical32 is std::generate_canonical<float, 24>: one draw rounded to
// float and divided by 2³²; uniform_real_distribution<float>(0, 1).
func (m *mt19937) canonical32() float32 {
	if r := float32(m.next()) / 0x1p32; r < 1 {
		return r
	}
	return 1 - 0x1p-24
}
