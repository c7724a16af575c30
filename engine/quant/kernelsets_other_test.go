//go:build !amd64 || purego

package quant

// assemblySets is empty: there are no assembly kernels.
func assemblySets() []func() { return nil }
