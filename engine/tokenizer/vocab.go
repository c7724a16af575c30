package tokenizer

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Limits on what Read accepts; real vocabularies are far smaller
// (llama2's has 32000 pieces of at most 27 bytes).
const (
	maxTokenLength = 1 << 16
	maxPieces      = 1 << 21
)

// MaxFile is the largest tokenizer.bin Read accepts: llama2.c's largest,
// of 32,000 tokens, is 434 KB.
const MaxFile = 64 << 20

// Vocab is the content of a llama2.c tokenizer.bin file: token id i is
// Pieces[i], with merge score Scores[i].
type Vocab struct {
	MaxTokenLength int // length in bytes of the longest piece allowed
	Pieces         []string
	Scores         []float32
}

// Read parses a tokenizer.bin file. It rejects a vocabulary that
// MarshalBinary would not write: one with no pieces, a piece longer than
// max_token_length, a NaN or infinite score, or the same piece twice (which
// would make looking a piece up ambiguous).
func Read(data []byte) (*Vocab, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("tokenizer: %d-byte file is too short for the max_token_length header", len(data))
	}
	if len(data) > MaxFile {
		return nil, fmt.Errorf("tokenizer: a %d-byte file is larger than the %d bytes a tokenizer.bin may have", len(data), MaxFile)
	}
	le := binary.LittleEndian
	// Each piece takes at least 8 bytes, which bounds the count by the file size.
	n := min((len(data)-4)/8, maxPieces)
	v := &Vocab{
		MaxTokenLength: int(int32(le.Uint32(data))),
		Pieces:         make([]string, 0, n),
		Scores:         make([]float32, 0, n),
	}
	for off := 4; off < len(data); {
		id := len(v.Pieces)
		if id == maxPieces {
			return nil, fmt.Errorf("tokenizer: more than %d pieces", maxPieces)
		}
		if len(data)-off < 8 {
			return nil, fmt.Errorf("tokenizer: piece %d at offset %d: file ends inside its score and length", id, off)
		}
		score := math.Float32frombits(le.Uint32(data[off:]))
		size := int(int32(le.Uint32(data[off+4:])))
		off += 8
		if size < 0 {
			return nil, fmt.Errorf("tokenizer: piece %d at offset %d: negative length %d", id, off-4, size)
		}
		if size > len(data)-off {
			return nil, fmt.Errorf("tokenizer: piece %d at offset %d: length %d runs past the end of the file", id, off-4, size)
		}
		v.Pieces = append(v.Pieces, string(data[off:off+size]))
		v.Scores = append(v.Scores, score)
		off += size
	}
	if _, err := v.index(); err != nil {
		return nil, err
	}
	return v, nil
}

// MarshalBinary returns v in tokenizer.bin format, which Read parses back
// to v, bit for bit.
func (v *Vocab) MarshalBinary() ([]byte, error) {
	if _, err := v.index(); err != nil {
		return nil, err
	}
	size := 4
	for _, p := range v.Pieces {
		size += 8 + len(p)
	}
	le := binary.LittleEndian
	data := le.AppendUint32(make([]byte, 0, size), uint32(v.MaxTokenLength))
	for i, p := range v.Pieces {
		data = le.AppendUint32(data, math.Float32bits(v.Scores[i]))
		data = le.AppendUint32(data, uint32(len(p)))
		data = append(data, p...)
	}
	return data, nil
}

// index checks that v is a vocabulary Read would accept and maps each
// piece to its id.
func (v *Vocab) index() (map[string]int, error) {
	switch {
	case v.MaxTokenLength < 1 || v.MaxTokenLength > maxTokenLength:
		return nil, fmt.Errorf("tokenizer: max_token_length %d is not in [1, %d]", v.MaxTokenLength, maxTokenLength)
	case len(v.Pieces) != len(v.Scores):
		return nil, fmt.Errorf("tokenizer: %d pieces but %d scores", len(v.Pieces), len(v.Scores))
	case len(v.Pieces) == 0:
		return nil, fmt.Errorf("tokenizer: no pieces")
	case len(v.Pieces) > maxPieces:
		return nil, fmt.Errorf("tokenizer: %d pieces, more than %d", len(v.Pieces), maxPieces)
	}
	ids := make(map[string]int, len(v.Pieces))
	for id, p := range v.Pieces {
		if len(p) > v.MaxTokenLength {
			return nil, fmt.Errorf("tokenizer: piece %d %q is %d bytes, longer than max_token_length %d", id, p, len(p), v.MaxTokenLength)
		}
		if s := float64(v.Scores[id]); math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("tokenizer: piece %d %q has score %v", id, p, s)
		}
		if first, dup := ids[p]; dup {
			return nil, fmt.Errorf("tokenizer: pieces %d and %d are both %q", first, id, p)
		}
		ids[p] = id
	}
	return ids, nil
}
