package transformer

import "nexttoken/engine/checkpoint"

// KVCache holds the key and value vector of every layer and position fed so
// far, so that a decode step computes them only for the new token.
// Keys are stored after the rotary embedding, as attention reads them.
type KVCache struct {
	layers, seqLen, kvDim, headSize int

	keys, values []float32 // layers × seq_len × kv_dim

	// Len is the number of positions filled: attention reads rows 0..Len-1.
	Len int
}

func newKVCache(c checkpoint.Config) KVCache {
	n := c.Layers * c.SeqLen * c.KVDim()
	return KVCache{
		layers: c.Layers, seqLen: c.SeqLen, kvDim: c.KVDim(), headSize: c.HeadSize(),
		keys: make([]float32, n), values: make([]float32, n),
	}
}

// Capacity is the number of positions the cache can hold (the context length).
func (c *KVCache) Capacity() int { return c.seqLen }

// Bytes is the memory the filled rows use: a key and a value of kv_dim
// float32 numbers per layer and position.
func (c *KVCache) Bytes() int { return 2 * c.layers * c.Len * c.kvDim * 4 }

// RowBytes is how much the cache grows per position.
func (c *KVCache) RowBytes() int { return 2 * c.layers * c.kvDim * 4 }

// Key is the key vector of kv head h at layer l and position pos.
func (c *KVCache) Key(l, pos, h int) []float32 { return c.head(c.keys, l, pos, h) }

// Value is the value vector of kv head h at layer l and position pos.
func (c *KVCache) Value(l, pos, h int) []float32 { return c.head(c.values, l, pos, h) }

func (c *KVCache) head(data []float32, l, pos, h int) []float32 {
	off := (l*c.seqLen+pos)*c.kvDim + h*c.headSize
	return data[off : off+c.headSize]
}

// row is where Forward writes the key and value of layer l at pos.
func (c *KVCache) row(l, pos int) (k, v []float32) {
	off := (l*c.seqLen + pos) * c.kvDim
	return c.keys[off : off+c.kvDim], c.values[off : off+c.kvDim]
}

// layer is every key and value row of layer l, position-major.
func (c *KVCache) layer(l int) (keys, values []float32) {
	off := l * c.seqLen * c.kvDim
	n := c.seqLen * c.kvDim
	return c.keys[off : off+n], c.values[off : off+n]
}
