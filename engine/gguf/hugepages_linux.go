package gguf

import (
	"syscall"
	"unsafe"
)

// hugePages asks Linux to back the whole 2 MiB pages within x's memory
// with huge pages (MADV_HUGEPAGE) before anything is written to it:
// a model's matrices stream from memory on every pass, which costs a TLB
// miss a 4 KiB page, and the hardware's prefetchers stop at each page's
// end. Only a hint: where the kernel declines, or the memory was written
// before, nothing changes but the speed.
func hugePages[T any](x []T) {
	const huge = 2 << 20
	if len(x) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(x))
	start := uintptr(p)
	end := start + uintptr(len(x))*unsafe.Sizeof(x[0])
	first, last := (start+huge-1)&^(huge-1), end&^(huge-1)
	if last <= first {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, first-start)), last-first)
	syscall.Madvise(b, 14) // MADV_HUGEPAGE; an error changes nothing
}
