package ui

import "strconv"

// linePath is an SVG path through points 0 … n−1 whose data follows the
// points as they are added and taken back: a step costs the bytes of its
// own point, not the whole path's again. Key is what the points depend on
// besides their index (a scale, the session's epoch); another key draws
// them all again.
type linePath[K comparable] struct {
	key  K
	data []byte
	ends []int // data[:ends[i]] draws points 0 … i
}

// update makes the path n points long, point(i) giving point i, and
// returns its data.
func (p *linePath[K]) update(key K, n int, point func(i int) (x, y float64)) string {
	if key != p.key {
		p.key, p.data, p.ends = key, p.data[:0], p.ends[:0]
	}
	if n < len(p.ends) {
		p.ends = p.ends[:n]
		p.data = p.data[:0]
		if n > 0 {
			p.data = p.data[:p.ends[n-1]]
		}
	}
	for i := len(p.ends); i < n; i++ {
		if i == 0 {
			p.data = append(p.data, 'M')
		} else {
			p.data = append(p.data, " L"...)
		}
		x, y := point(i)
		p.data = strconv.AppendFloat(p.data, x, 'f', 1, 64)
		p.data = append(p.data, ' ')
		p.data = strconv.AppendFloat(p.data, y, 'f', 1, 64)
		p.ends = append(p.ends, len(p.data))
	}
	return string(p.data)
}
