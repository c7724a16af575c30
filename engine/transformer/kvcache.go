package transformer

import "nexttoken/engine/checkpoint"

// KVCache holds the key and value vector of every layer and position fed so
// far, so that a decode step computes them only for the new token.
// Keys are stored after the rotary embedding, as attention reads them.
//
// Its memory grows with the positions fed, doubling, up to the context
// length: a checkpoint whose header claims a context of a million positions
// costs only what its session uses.
type KVCache struct {
	layers, seqLen, kvDim, headSize int

	rows         int       // positions the memory holds
	keys, values []float32 // layers × rows × kv_dim

	// Len is the number of positions filled: attention reads rows 0..Len-1.
	Len int
}

// firstRows is how many positions a cache holds before it first grows.
const firstRows = 256

func newKVCache(c checkpoint.Config) KVCache {
	cache := KVCache{layers: c.Layers, seqLen: c.SeqLen, kvDim: c.KVDim(), headSize: c.HeadSize()}
	cache.reserve(min(c.SeqLen, firstRows))
	return cache
}

// reserve makes room for n positions, keeping the rows filled.
func (c *KVCache) reserve(n int) {
	if n <= c.rows {
		return
	}
	rows := min(max(n, 2*c.rows), c.seqLen)
	keys := make([]float32, c.layers*rows*c.kvDim)
	values := make([]float32, len(keys))
	filled := min(c.Len, c.rows) * c.kvDim
	for l := range c.layers {
		old, next := l*c.rows*c.kvDim, l*rows*c.kvDim
		copy(keys[next:], c.keys[old:old+filled])
		copy(values[next:], c.values[old:old+filled])
	}
	c.rows, c.keys, c.values = rows, keys, values
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
	off := (l*c.rows+pos)*c.kvDim + h*c.headSize
	return data[off : off+c.headSize]
}

// row is where Forward writes the key and value of layer l at pos, which
// reserve made room for.
func (c *KVCache) row(l, pos int) (k, v []float32) {
	off := (l*c.rows + pos) * c.kvDim
	return c.keys[off : off+c.kvDim], c.values[off : off+c.kvDim]
}

// layer is every key and value row of layer l, position-major.
func (c *KVCache) layer(l int) (keys, values []float32) {
	off := l * c.rows * c.kvDim
	n := c.rows * c.kvDim
	return c.keys[off : off+n], c.values[off : off+n]
}

// View is a read-only view of the first n positions of the cache.
func (c *KVCache) View(n int) CacheView {
	return CacheView{c: c, n: min(max(n, 0), c.Len)}
}

// CacheView shows the first Len positions of a KV cache, as a step read
// them. The zero value is an empty view with no layers.
type CacheView struct {
	c *KVCache
	n int
}

// Len is the number of positions in view.
func (v CacheView) Len() int { return v.n }

// Layers is the number of layers, each with its own keys and values.
func (v CacheView) Layers() int {
	if v.c == nil {
		return 0
	}
	return v.c.layers
}

// Heads is the number of key/value heads of a layer.
func (v CacheView) Heads() int {
	if v.c == nil {
		return 0
	}
	return v.c.kvDim / v.c.headSize
}

// Bytes is the memory the positions in view use.
func (v CacheView) Bytes() int { return v.n * v.RowBytes() }

// RowBytes is how much the cache grows per position.
func (v CacheView) RowBytes() int {
	if v.c == nil {
		return 0
	}
	return v.c.RowBytes()
}

// Capacity is the number of positions the cache can hold.
func (v CacheView) Capacity() int {
	if v.c == nil {
		return 0
	}
	return v.c.seqLen
}

// Key is the key vector of kv head h at layer l and position pos < Len.
func (v CacheView) Key(l, pos, h int) []float32 { return v.c.Key(l, v.check(pos), h) }

// Value is the value vector of kv head h at layer l and position pos < Len.
func (v CacheView) Value(l, pos, h int) []float32 { return v.c.Value(l, v.check(pos), h) }

func (v CacheView) check(pos int) int {
	if pos < 0 || pos >= v.n {
		panic("transformer: position out of the cache view")
	}
	return pos
}
