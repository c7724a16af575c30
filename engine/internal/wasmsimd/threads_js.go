//go:build js

package wasmsimd

import (
	"errors"
	"syscall/js"
	"unsafe"

	"github.com/hack-pad/safejs"
)

// MaxThreads is the most threads a Kernel runs products on.
const MaxThreads = 8

// The kernels threads run, by their index in threadedKernels: the
// products of a step's matrices, whose rows are independent. The others
// (attention, softmax, SwiGLU, the fetched modules' formats) stay on the
// caller's thread.
const (
	threadedMatVec = iota
	threadedQ8_0
	threadedQ4_0
	threadedQ5_0
	threadedQ4_K
	threadedQ6_K
)

// notThreaded is the index of a kernel threads do not run.
const notThreaded = -1

// threadedKernels are the exports of the threaded kernels, in the order
// of their indexes above.
var threadedKernels = []any{"matvec_f32_args", "mul_q8_0_args", "mul_q4_0_args", "mul_q5_0_args", "mul_q4_k_args", "mul_q6_k_args"}

// threadedModule reports whether a module's exports include a threaded
// kernel: the modules every thread instantiates.
func threadedModule(exports map[string]*js.Value) bool {
	for _, name := range threadedKernels {
		if _, ok := exports[name.(string)]; ok {
			return true
		}
	}
	return false
}

// The words of threads.control that Go writes (web/kernel-threads.js's
// kernelControl has them all).
const (
	controlReady  = 3
	controlActive = 4
)

// A share's arguments are shareWords words, the kernel's index
// (threadedKernels) the last: web/kernel-threads.js's shareWords and
// shareKernel.
const (
	shareWords  = 10
	shareKernel = shareWords - 1
)

// shareRows is what a share's rows are a multiple of (but the last's):
// the kernels take rows four at a time and the rest one at a time, so
// every row is summed as on one thread, bit for bit.
const shareRows = 4

// minThreadedRows and minThreadedSize are the fewest rows and
// multiply-adds a product is split for: below them, waking the other
// threads costs more than they save.
const (
	minThreadedRows = 64
	minThreadedSize = 1 << 16
)

// sharesPerThread is how many shares of a product's rows there are for
// each thread: a thread the system runs late holds back only a small
// share, which the others wait for, and leaves the rest to them. Each
// share is also a claim and a call from JavaScript, and the threads' runs
// of rows are shorter: decoding SmolLM2-135M's shape on two threads in
// Chromium, 2 ran 5–7 % faster than 4 (make timing's TestDecodeTiming,
// alternating), and the Qwen2.5-0.5B shape's as fast.
const sharesPerThread = 2

// maxShares is the most shares laid out at once, a product's or a
// batch's (web/kernel-threads.js binds each kernel to each share's
// arguments).
const maxShares = sharesPerThread * MaxThreads

// threads runs the threaded kernels on n threads over the Go program's
// shared memory: the caller's and n − 1 others (web/kernel-threads.js),
// which take the shares of a product's rows until none is left.
type threads struct {
	n        int
	run      js.Value                       // runs the shares described in control and shares
	control  *[8]int32                      // read and written by the threads with Atomics
	shares   *[maxShares][shareWords]uint32 // each share's arguments and kernel
	laid     int                            // shares laid out, not run yet
	batching bool                           // between Batch and RunBatch
}

// StartThreads runs the products of k on n threads from now on, once the
// threads have started (until then, on one). It needs the Go program's
// memory shared, which a page has when it is cross-origin isolated, and
// web/kernel-threads.js loaded; it fails otherwise, and k stays on one
// thread. n is at most MaxThreads.
func (k *Kernel) StartThreads(n int) error {
	if n < 2 || k.threads != nil {
		return nil
	}
	n = min(n, MaxThreads)
	if !k.shared {
		return errors.New("the program's memory is not shared: threads need a cross-origin isolated page")
	}
	start, err := safejs.Global().Get("nexttokenKernelThreads")
	if err != nil || start.Type() != safejs.TypeFunction {
		return errors.New("the kernel threads' script (web/kernel-threads.js) is not loaded")
	}
	t := &threads{n: n, control: new([8]int32), shares: new([maxShares][shareWords]uint32)}
	modules := make([]any, len(k.threaded))
	for i, m := range k.threaded {
		modules[i] = m
	}
	run, err := start.Invoke(n, k.mem, modules, threadedKernels,
		address(unsafe.Pointer(t.control)), address(unsafe.Pointer(t.shares)), maxShares)
	if err != nil {
		return err
	}
	t.run = safejs.Unsafe(run)
	k.threads = t
	return nil
}

// Shared reports whether the Go program's memory is shared, so that
// StartThreads can run threads on it.
func (k *Kernel) Shared() bool { return k.shared }

// Threads is the number of threads k's products run on now.
func (k *Kernel) Threads() int {
	if t := k.threads; t != nil && t.ready() {
		return t.n
	}
	return 1
}

// ready reports whether every other thread has started.
func (t *threads) ready() bool { return int(t.control[controlReady]) == t.n-1 }

// splits reports whether a product of rows rows of cols runs on t's
// threads.
func (t *threads) splits(rows, cols int) bool {
	return t != nil && rows >= minThreadedRows && rows*cols >= minThreadedSize && t.ready()
}

// split is how a product of rows rows is shared: every share but the
// last has per rows, sharesPerThread a thread, a multiple of shareRows and
// at least minShareRows; share s has rows [s·per, min((s+1)·per, rows)).
func (t *threads) split(rows int) (per, shares int) {
	per = max((rows+t.n*sharesPerThread-1)/(t.n*sharesPerThread), minShareRows)
	per = (per + shareRows - 1) / shareRows * shareRows
	return per, (rows + per - 1) / per
}

// minShareRows is the fewest rows of a share: each costs a claim and a
// call.
const minShareRows = 16

// lay lays out a product of rows rows on t's threads: its shares after
// those laid out already, each one's arguments set by args(a, r0, r1) for
// rows r0 … r1−1 and its kernel's index in the word after them. It runs
// the shares laid out first if this product's would not fit.
func (k *Kernel) lay(kernel, rows int, args func(a *[shareWords]uint32, r0, r1 int)) error {
	t := k.threads
	per, shares := t.split(rows)
	var err error
	if t.laid+shares > maxShares {
		err = k.runLaid()
	}
	for s := range shares {
		a := &t.shares[t.laid+s]
		args(a, s*per, min((s+1)*per, rows))
		a[shareKernel] = uint32(kernel)
	}
	t.laid += shares
	if !t.batching {
		err = errors.Join(err, k.runLaid())
	}
	return err
}

// runLaid runs the shares laid out on the threads and returns when every
// one is done.
func (k *Kernel) runLaid() error {
	t := k.threads
	if t.laid == 0 {
		return nil
	}
	t.control[controlActive] = int32(t.laid)
	t.laid = 0
	return k.call(t.run)
}

// Batch begins a batch of products: until RunBatch, the products k's
// threads split are laid out one after another and not run, and RunBatch
// splits them as one, waking the threads once instead of once a product.
// The products must not read one another's outputs, and their slices
// must stay as they are until RunBatch. Products the threads do not split
// run at once; on one thread every product does.
func (k *Kernel) Batch() {
	if t := k.threads; t != nil {
		t.batching = true
	}
}

// RunBatch runs the products of the batch Batch began and ends it. An
// error means the call into JavaScript failed; the batch's outputs are
// then undefined.
func (k *Kernel) RunBatch() error {
	t := k.threads
	if t == nil {
		return nil
	}
	t.batching = false
	return k.runLaid()
}
