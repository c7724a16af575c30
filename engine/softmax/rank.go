package softmax

// RanksBefore reports whether token a ranks before token b in p: the order
// of every ranking (Top, Rank and the sampler's stages), descending
// probability, ties by ascending id, so that every result is deterministic.
func RanksBefore(p []float64, a, b int) bool {
	return p[a] > p[b] || p[a] == p[b] && a < b
}

// Top puts the n most probable tokens of p (those of nonzero probability,
// if fewer) into ids, most probable first and ties by ascending id, and
// returns it. It reads p once and keeps only n tokens: O(len(p)) for a
// small n.
func Top(p []float64, n int, ids []int) []int {
	ids = ids[:0]
	for i, q := range p {
		if q <= 0 || n == 0 || len(ids) == n && !RanksBefore(p, i, ids[n-1]) {
			continue
		}
		if len(ids) < n {
			ids = append(ids, i)
		} else {
			ids[n-1] = i
		}
		for j := len(ids) - 1; j > 0 && RanksBefore(p, ids[j], ids[j-1]); j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

// Rank is token's place in p's ranking, 1 for the most probable: one more
// than the tokens that rank before it (more probable, or as probable with a
// smaller id, as Top orders them). It reads p once and allocates nothing.
func Rank(p []float64, token int) int {
	rank := 1
	for i := range p {
		if RanksBefore(p, i, token) {
			rank++
		}
	}
	return rank
}
