package quant

import "encoding/binary"

// Interleaved rows: Q8_0 and Q4_0 matrices whose rows go eight at a time,
// block by block, so that one integer instruction multiplies a piece of
// eight rows, a row a lane, and each lane adds its row's blocks in order
// (the kernels of ggml-cpu's repacked formats do the same). A group of
// eight rows keeps their bytes, 8·RowBytes, as a block of the group after
// another: the eight rows' float16 scales (16 bytes), then their quants
// four bytes a row at a time (chunks of 32 bytes: row 0's four, row 1's,
// …, row 7's), Q8_0's each XOR 0x80 (the unsigned bytes VPDPBUSD takes,
// weight + 128). Rows past the last whole group stay as they are.

// groupRows is how many rows a group interleaves.
const groupRows = 8

// interleaves reports whether t's rows can be interleaved, and the XOR of
// their quants.
func interleaves(t Type) (xor byte, ok bool) {
	switch t {
	case Q8_0:
		return 0x80, true
	case Q4_0:
		return 0, true
	}
	return 0, false
}

// interleave lays out m's whole groups of rows interleaved, in place. m
// must be one of interleaves' formats, in the row layout.
func interleave(m *Matrix) {
	xor8, _ := interleaves(m.Type)
	blockBytes, xor := m.Type.BlockBytes(), uint32(xor8)*0x01010101
	rowBytes := RowBytes(m.Type, m.Cols)
	rows := make([]byte, groupRows*rowBytes)
	for g := range m.Rows / groupRows {
		group := m.Q[g*len(rows):][:len(rows)]
		copy(rows, group)
		for b := range m.Cols / 32 {
			at := group[b*groupRows*blockBytes:]
			for r := range groupRows {
				blk := rows[r*rowBytes+b*blockBytes:][:blockBytes]
				copy(at[2*r:2*r+2], blk[:2])
				for c := 0; 2+4*c < blockBytes; c++ { // four quants at a time
					q := binary.LittleEndian.Uint32(blk[2+4*c:])
					binary.LittleEndian.PutUint32(at[2*groupRows+32*c+4*r:], q^xor)
				}
			}
		}
	}
	m.groups = m.Rows / groupRows
}

// groupBlock sets blk to row r's block b of a group of interleaved rows
// of t, as the row layout holds it.
func groupBlock(t Type, group []byte, b, r int, blk []byte) {
	xor, _ := interleaves(t)
	blockBytes := len(blk)
	at := group[b*groupRows*blockBytes:]
	copy(blk[:2], at[2*r:2*r+2])
	for j := range blk[2:] {
		blk[2+j] = at[2*groupRows+32*(j/4)+4*r+j%4] ^ xor
	}
}

// RowMajor returns m's bytes in the row layout: m.Q, or a copy of it with
// the groups laid out again as rows.
func (m *Matrix) RowMajor() []byte {
	if !canInterleave || m.groups == 0 {
		return m.Q
	}
	q := append([]byte(nil), m.Q...)
	blockBytes, rowBytes := m.Type.BlockBytes(), RowBytes(m.Type, m.Cols)
	for g := range m.groups {
		group := m.Q[g*groupRows*rowBytes:]
		for r := range groupRows {
			row := q[(g*groupRows+r)*rowBytes:]
			for b := range m.Cols / 32 {
				groupBlock(m.Type, group, b, r, row[b*blockBytes:][:blockBytes])
			}
		}
	}
	return q
}

// mulGroupsGo sets out[0 … 8·groups) to the interleaved rows of w times
// v, as mulQ8_0 and mulQ4_0 multiply rows: the Go twin of the assembly.
func mulGroupsGo(t Type, out []float32, w []byte, v *Vec) {
	blockBytes := t.BlockBytes()
	groupBytes := groupRows * len(v.d) * blockBytes
	var blk [q8_0Bytes]byte
	for g := range len(out) / groupRows {
		group := w[g*groupBytes:][:groupBytes]
		sums := (*[groupRows]float32)(out[g*groupRows:])
		*sums = [groupRows]float32{}
		for b, vd := range v.d {
			q := (*[32]int8)(v.q[b*32:])
			for r := range groupRows {
				groupBlock(t, group, b, r, blk[:blockBytes])
				if t == Q8_0 {
					sums[r] += termQ8_0(&blk, q, vd)
				} else {
					sums[r] += termQ4_0((*[q4_0Bytes]byte)(blk[:]), q, v.sums[b], vd)
				}
			}
		}
	}
}

// mulGroups multiplies m's interleaved rows by v into out, in assembly
// where the CPU runs it, and returns the rows left, in the row layout:
// out's and m's past them.
func (m *Matrix) mulGroups(out []float32, v *Vec) ([]float32, []byte) {
	if !canInterleave || m.groups == 0 {
		return out, m.Q
	}
	rows := m.groups * groupRows
	bytes := rows * RowBytes(m.Type, m.Cols)
	if !mulGroupsSIMD(m.Type, out[:rows], m.Q[:bytes], v) {
		mulGroupsGo(m.Type, out[:rows], m.Q[:bytes], v)
	}
	return out[rows:], m.Q[bytes:]
}
