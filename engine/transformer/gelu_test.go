package transformer

import (
	"encoding/binary"
	"hash/fnv"
	"testing"
)

// TestGELUTableIsGGMLs: the GELU table hashes as ggml's does, computed by
// ggml-cpu.c's own code (ggml_gelu_f32 with glibc's tanhf, F16C's
// conversions) compiled without fused multiply-adds: FNV-1a 64 of the
// 65,536 entries, little-endian (engine/gguf/testdata/architectures/README.md
// has the program). A build that fuses them (gcc -march=native on a CPU
// with FMA, as llama.cpp's own build here) differs at one entry, x =
// −1.9990234375: 0xa9d3 there, 0xa9d2 here, one half-precision step.
func TestGELUTableIsGGMLs(t *testing.T) {
	const ggml = 0x9f740c23957c76cd
	h := fnv.New64a()
	for _, v := range geluTable() {
		h.Write(binary.LittleEndian.AppendUint16(nil, v))
	}
	if got := h.Sum64(); got != ggml {
		t.Errorf("the GELU table hashes to %016x, ggml's to %016x", got, uint64(ggml))
	}
	for _, tc := range []struct{ x, want float32 }{{-11, 0}, {-10, 0}, {10, 10}, {12.5, 12.5}, {0, 0}} {
		if got := gelu(tc.x); got != tc.want {
			t.Errorf("gelu(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
}
