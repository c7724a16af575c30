//go:build !linux

package gguf

// hugePages does nothing here: huge pages are asked for on Linux.
func hugePages[T any]([]T) {}
