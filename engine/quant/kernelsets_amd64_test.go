//go:build amd64 && !purego

package quant

// assemblySets are the sets of assembly kernels the CPU runs, each a
// function that turns it on, for tests to compare with the Go kernels:
// AVX2 alone, then AVX-512 VNNI's where the CPU runs them; none on a CPU
// without AVX2.
func assemblySets() []func() {
	if !hasAVX2 {
		return nil
	}
	sets := []func(){func() { UseSIMD(true); vnni = false }}
	if hasVNNI {
		sets = append(sets, func() { UseSIMD(true) })
	}
	return sets
}
