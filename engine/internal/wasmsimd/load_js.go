//go:build js

package wasmsimd

import (
	"errors"
	"fmt"
	"runtime"
	"syscall/js"
	"unsafe"

	"github.com/hack-pad/safejs"

	"nexttoken/engine/quant"
	"nexttoken/engine/wasmshare"
)

// Kernel is the modules instantiated on this Go program's memory.
type Kernel struct {
	// matvec, mulQ8_0, mulQ4_0, mulQ5_0, mulQ4_K, mulQ6_K, scores,
	// softmax, values, swiglu and quantize are the _args forms of
	// matvec_f32, mul_q8_0, mul_q4_0, mul_q5_0, mul_q4_k, mul_q6_k,
	// attention_scores, softmax_rows, attention_values, swiglu and
	// quantize_q8_0, bound to args' address, so that a call passes no
	// arguments (see call); fetched those of fetchedKernels, undefined
	// until AddModule adds their module.
	matvec, mulQ8_0, mulQ4_0, mulQ5_0, mulQ4_K, mulQ6_K, scores, softmax, values, swiglu, quantize js.Value
	fetched                                                                                        [fetchedCount]js.Value
	args                                                                                           *[10]uint32  // the arguments of a call; on the heap, which does not move
	mem                                                                                            safejs.Value // the Go program's memory, for AddModule
	shared                                                                                         bool         // whether mem is shared (threads can run on it)
	threaded                                                                                       []js.Value   // the modules of the kernels threads run (threadedKernels)
	threads                                                                                        *threads     // nil on one thread
}

// Load instantiates the embedded kernel modules on the Go program's own
// memory. It fails where the browser's WebAssembly has no SIMD, or where
// the Go instance's memory cannot be reached; the caller then keeps its Go
// kernels. The fetched modules' kernels are missing until AddModule.
func Load() (*Kernel, error) {
	mem, err := goMemory()
	if err != nil {
		return nil, fmt.Errorf("the Go program's memory: %w", err)
	}
	k := &Kernel{args: new([10]uint32), mem: mem}
	if k.shared, err = isShared(mem); err != nil {
		return nil, err
	}
	for _, m := range []struct {
		bytes   []byte
		exports map[string]*js.Value
	}{
		{matvecModule, map[string]*js.Value{"matvec_f32_args": &k.matvec, "mul_q8_0_args": &k.mulQ8_0, "mul_q4_0_args": &k.mulQ4_0}},
		{q5_0Module, map[string]*js.Value{"mul_q5_0_args": &k.mulQ5_0}},
		{q4_KModule, map[string]*js.Value{"mul_q4_k_args": &k.mulQ4_K}},
		{q6_KModule, map[string]*js.Value{"mul_q6_k_args": &k.mulQ6_K}},
		{attentionModule, map[string]*js.Value{"attention_scores_args": &k.scores, "softmax_rows_args": &k.softmax, "attention_values_args": &k.values}},
		{swigluModule, map[string]*js.Value{"swiglu_args": &k.swiglu}},
		{quantizeModule, map[string]*js.Value{"quantize_q8_0_args": &k.quantize}},
	} {
		compiled, exports, err := instantiate(m.bytes, mem, k.shared)
		if err != nil {
			return nil, err
		}
		if threadedModule(m.exports) {
			k.threaded = append(k.threaded, safejs.Unsafe(compiled))
		}
		for name, f := range m.exports {
			if *f, err = bindArgs(exports, name, k.args); err != nil {
				return nil, err
			}
		}
	}
	return k, nil
}

// Missing reports whether the kernel of format t is in a fetched module
// that k has not added yet (AddModule), and returns the module's file
// (in web/kernels, beside app.wasm) and the address to fetch it by,
// relative to that folder, which names the version this program needs.
func (k *Kernel) Missing(t quant.Type) (file, address string, missing bool) {
	for i, f := range fetchedKernels {
		if f.format == t && k.fetched[i].IsUndefined() {
			return f.file, fetchedAddresses[f.file], true
		}
	}
	return "", "", false
}

// AddModule instantiates the fetched module called file, whose bytes are
// module, and its kernels then replace Go's loops. It refuses bytes that
// are not the module this program was built with.
func (k *Kernel) AddModule(file string, module []byte) error {
	if want, ok := fetchedHashes[file]; !ok || hashModule(module) != want {
		return errors.New("the kernel module " + file + " is not one this program was built with")
	}
	_, exports, err := instantiate(module, k.mem, k.shared)
	if err != nil {
		return err
	}
	for i, f := range fetchedKernels {
		if f.file == file {
			if k.fetched[i], err = bindArgs(exports, f.export+"_args", k.args); err != nil {
				return err
			}
		}
	}
	return nil
}

// instantiate compiles a module and instantiates it on mem, shared or
// not, returning the compiled module and its instance's exports.
func instantiate(module []byte, mem safejs.Value, shared bool) (compiled, exports safejs.Value, err error) {
	if shared {
		if module, err = wasmshare.Memory(module); err != nil {
			return safejs.Value{}, safejs.Value{}, err
		}
	}
	wasm, err := safejs.Global().Get("WebAssembly")
	if err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	bytes, err := jsBytes(module)
	if err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	valid, err := wasm.Call("validate", bytes)
	if err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	if ok, err := valid.Bool(); err != nil || !ok {
		return safejs.Value{}, safejs.Value{}, errors.New("this WebAssembly engine has no SIMD (the kernel module does not validate)")
	}
	moduleType, err := wasm.Get("Module")
	if err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	if compiled, err = moduleType.New(bytes); err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	instanceType, err := wasm.Get("Instance")
	if err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	imports := map[string]any{"env": map[string]any{"mem": mem}}
	instance, err := instanceType.New(compiled, imports)
	if err != nil {
		return safejs.Value{}, safejs.Value{}, err
	}
	exports, err = instance.Get("exports")
	return compiled, exports, err
}

// isShared reports whether mem, a WebAssembly.Memory, is shared: whether
// its buffer is a SharedArrayBuffer.
func isShared(mem safejs.Value) (bool, error) {
	sab, err := safejs.Global().Get("SharedArrayBuffer")
	if err != nil || sab.Type() != safejs.TypeFunction {
		return false, nil // no shared memory here at all
	}
	buffer, err := mem.Get("buffer")
	if err != nil {
		return false, err
	}
	return buffer.InstanceOf(sab)
}

// bindArgs returns the export name bound to the address of args.
func bindArgs(exports safejs.Value, name string, args *[10]uint32) (js.Value, error) {
	f, err := exports.Get(name)
	if err != nil {
		return js.Value{}, err
	}
	bound, err := f.Call("bind", safejs.Null(), address(unsafe.Pointer(args)))
	return safejs.Unsafe(bound), err
}

// MatVec sets out[i] = Σ_j w[i·n + j]·x[j] for i < d, W row-major, summing
// in the order of transformer's matmulUnrolled (see Generate). Short slices
// panic, as slicing them would: the kernel itself reads memory unchecked.
// An error means the call into JavaScript failed; out is then undefined.
func (k *Kernel) MatVec(out, x, w []float32, n, d int) error {
	out, x, w = out[:d], x[:n], w[:d*n]
	if d == 0 || n == 0 {
		clear(out)
		return nil
	}
	var err error
	if k.threads.splits(d, n) {
		err = k.lay(threadedMatVec, d, func(a *[shareWords]uint32, r0, r1 int) {
			a[0] = address(unsafe.Pointer(&out[r0]))
			a[1] = address(unsafe.Pointer(&x[0]))
			a[2] = address(unsafe.Pointer(&w[r0*n]))
			a[3] = uint32(n)
			a[4] = uint32(r1 - r0)
		})
	} else {
		k.args[0] = address(unsafe.Pointer(&out[0]))
		k.args[1] = address(unsafe.Pointer(&x[0]))
		k.args[2] = address(unsafe.Pointer(&w[0]))
		k.args[3] = uint32(n)
		k.args[4] = uint32(d)
		err = k.call(k.matvec)
	}
	runtime.KeepAlive(out)
	runtime.KeepAlive(x)
	runtime.KeepAlive(w)
	return err
}

// MulQ8_0 sets out[i] for i < len(out) to row i of w, Q8_0 blocks of
// len(d) blocks a row, times the vector quantized to Q8_0 blocks: q (32
// values a block) and their scales d, as quant.Vec.Q8_0 gives them. The
// results are those of quant's Q8_0 MulVec, bit for bit (see mulQuant).
// Short slices panic; an error means the call into JavaScript failed.
func (k *Kernel) MulQ8_0(out []float32, w []byte, q []int8, d []float32) error {
	return callQuant[int32](k, k.mulQ8_0, q8_0, threadedQ8_0, out, w, q, d, nil)
}

// MulQ4_0 is MulQ8_0 for Q4_0 rows, which also need the sum of each block
// of q, sums, as quant.Vec.Q8_0 gives them.
func (k *Kernel) MulQ4_0(out []float32, w []byte, q []int8, d []float32, sums []int32) error {
	return callQuant(k, k.mulQ4_0, q4_0, threadedQ4_0, out, w, q, d, sums)
}

// MulQ5_0 is MulQ4_0 for Q5_0 rows.
func (k *Kernel) MulQ5_0(out []float32, w []byte, q []int8, d []float32, sums []int32) error {
	return callQuant(k, k.mulQ5_0, q5_0, threadedQ5_0, out, w, q, d, sums)
}

// MulQ5_1 is MulQ8_0 for Q5_1 rows, which also need each block's s
// (block_q8_1's d·Σq as a half), as quant.Vec.Q8_1 gives them.
func (k *Kernel) MulQ5_1(out []float32, w []byte, q []int8, d, s []float32) error {
	return callQuant(k, k.fetched[fetchedQ5_1], q5_1, notThreaded, out, w, q, d, s)
}

// MulQ4_K is MulQ4_0 for Q4_K rows, times the vector quantized to Q8_K
// blocks (256 values a block, and the sums of each group of 16), as
// quant.Vec.Q8_K gives them.
func (k *Kernel) MulQ4_K(out []float32, w []byte, q []int8, d []float32, sums []int32) error {
	return callQuant(k, k.mulQ4_K, q4_K, threadedQ4_K, out, w, q, d, sums)
}

// MulQ5_K is MulQ4_K for Q5_K rows.
func (k *Kernel) MulQ5_K(out []float32, w []byte, q []int8, d []float32, sums []int32) error {
	return callQuant(k, k.fetched[fetchedQ5_K], q5_K, notThreaded, out, w, q, d, sums)
}

// MulQ6_K is MulQ8_0 for Q6_K rows, times the vector quantized to Q8_K
// blocks, as quant.Vec.Q8_K gives them.
func (k *Kernel) MulQ6_K(out []float32, w []byte, q []int8, d []float32) error {
	return callQuant[int32](k, k.mulQ6_K, q6_K, threadedQ6_K, out, w, q, d, nil)
}

// MulQ2_K is MulQ4_K for Q2_K rows.
func (k *Kernel) MulQ2_K(out []float32, w []byte, q []int8, d []float32, sums []int32) error {
	return callQuant(k, k.fetched[fetchedQ2_K], q2_K, notThreaded, out, w, q, d, sums)
}

// MulQ3_K is MulQ6_K for Q3_K rows.
func (k *Kernel) MulQ3_K(out []float32, w []byte, q []int8, d []float32) error {
	return callQuant[int32](k, k.fetched[fetchedQ3_K], q3_K, notThreaded, out, w, q, d, nil)
}

// MulIQ4_NL is MulQ8_0 for IQ4_NL rows.
func (k *Kernel) MulIQ4_NL(out []float32, w []byte, q []int8, d []float32) error {
	return callQuant[int32](k, k.fetched[fetchedIQ4_NL], iq4_NL, notThreaded, out, w, q, d, nil)
}

// MulIQ4_XS is MulQ6_K for IQ4_XS rows.
func (k *Kernel) MulIQ4_XS(out []float32, w []byte, q []int8, d []float32) error {
	return callQuant[int32](k, k.fetched[fetchedIQ4_XS], iq4_XS, notThreaded, out, w, q, d, nil)
}

// callQuant calls a quantized kernel, on threads if it is one of the
// threaded ones (threadedKernels) and k runs threads; sums is nil for the
// formats that do not read them, and float32s for Q5_1's.
func callQuant[S int32 | float32](k *Kernel, kernel js.Value, format quantFormat, threaded int, out []float32, w []byte, q []int8, d []float32, sums []S) error {
	blocks, rows := len(d), len(out)
	w, q = w[:rows*blocks*int(format.blockBytes)], q[:blocks*int(format.qBlock)]
	if sums != nil {
		sums = sums[:blocks*int(format.sumsBytes)/4]
	}
	if blocks == 0 || rows == 0 {
		clear(out)
		return nil
	}
	if kernel.IsUndefined() {
		return errMissing
	}
	var err error
	if threaded != notThreaded && k.threads.splits(rows, blocks*int(format.qBlock)) {
		rowBytes := blocks * int(format.blockBytes)
		err = k.lay(threaded, rows, func(a *[shareWords]uint32, r0, r1 int) {
			a[0] = address(unsafe.Pointer(&out[r0]))
			a[1] = address(unsafe.Pointer(&w[r0*rowBytes]))
			a[2] = address(unsafe.Pointer(&q[0]))
			a[3] = address(unsafe.Pointer(&d[0]))
			a[4] = address(unsafe.Pointer(unsafe.SliceData(sums)))
			a[5] = uint32(blocks)
			a[6] = uint32(r1 - r0)
		})
	} else {
		k.args[0] = address(unsafe.Pointer(&out[0]))
		k.args[1] = address(unsafe.Pointer(&w[0]))
		k.args[2] = address(unsafe.Pointer(&q[0]))
		k.args[3] = address(unsafe.Pointer(&d[0]))
		k.args[4] = address(unsafe.Pointer(unsafe.SliceData(sums))) // 0 when nil, unread
		k.args[5] = uint32(blocks)
		k.args[6] = uint32(rows)
		err = k.call(kernel)
	}
	runtime.KeepAlive(out)
	runtime.KeepAlive(w)
	runtime.KeepAlive(q)
	runtime.KeepAlive(d)
	runtime.KeepAlive(sums)
	return err
}

// errMissing says a kernel's module has not been added (Kernel.Missing).
var errMissing = errors.New("the SIMD kernel's module is not loaded")

// call runs a bound kernel. The decode step must not allocate, and
// safejs's Invoke allocates on every call (it copies the arguments into a
// new []any, boxed), so call uses syscall/js's Invoke of no arguments,
// which does not, and turns its panic (a JavaScript exception, such as a
// trap) into an error, as safejs does.
func (k *Kernel) call(kernel js.Value) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the SIMD kernel failed: %v", r)
		}
	}()
	kernel.Invoke()
	return nil
}

// address is p's offset in the Go program's linear memory (wasm32: below
// 4 GiB, although Go's pointers are 64 bits wide).
func address(p unsafe.Pointer) uint32 { return uint32(uintptr(p)) }

// jsBytes copies b into a new Uint8Array.
func jsBytes(b []byte) (safejs.Value, error) {
	array, err := safejs.Global().Get("Uint8Array")
	if err != nil {
		return safejs.Value{}, err
	}
	v, err := array.New(len(b))
	if err != nil {
		return safejs.Value{}, err
	}
	_, err = safejs.CopyBytesToJS(v, b)
	return v, err
}

// goMemory returns the WebAssembly.Memory the Go program runs in: the
// "mem" export of its instance. Neither loader publishes the instance:
// wasm_exec.js's Go object keeps it as go._inst, and go-app's app.js (like
// Go's own wasm_exec_node.js) holds that Go object in a local variable only.
// The one place JavaScript hands the Go object to Go is js.FuncOf, which
// calls go._makeFuncWrapper(id), a method of the Go class's prototype, and
// keeps what it returns as the new function's value. For one FuncOf,
// goMemory makes that method Object.prototype.valueOf, which returns its
// receiver: the Go object. The method is put back at once; nothing else
// runs meanwhile (Go's wasm is single-threaded and this code does not yield).
func goMemory() (safejs.Value, error) {
	goClass, err := safejs.Global().Get("Go")
	if err != nil {
		return safejs.Value{}, err
	}
	if goClass.Type() != safejs.TypeFunction {
		return safejs.Value{}, errors.New("no Go class (wasm_exec.js)")
	}
	proto, err := goClass.Get("prototype")
	if err != nil {
		return safejs.Value{}, err
	}
	makeFuncWrapper, err := proto.Get("_makeFuncWrapper")
	if err != nil {
		return safejs.Value{}, err
	}
	if makeFuncWrapper.Type() != safejs.TypeFunction {
		return safejs.Value{}, errors.New("wasm_exec.js's Go class has no _makeFuncWrapper")
	}
	object, err := safejs.Global().Get("Object")
	if err != nil {
		return safejs.Value{}, err
	}
	objectProto, err := object.Get("prototype")
	if err != nil {
		return safejs.Value{}, err
	}
	valueOf, err := objectProto.Get("valueOf")
	if err != nil {
		return safejs.Value{}, err
	}
	if err := proto.Set("_makeFuncWrapper", valueOf); err != nil {
		return safejs.Value{}, err
	}
	f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any { return nil })
	if restoreErr := proto.Set("_makeFuncWrapper", makeFuncWrapper); err == nil {
		err = restoreErr
	}
	if err != nil {
		return safejs.Value{}, err
	}
	goObject := f.Value()
	f.Release()
	inst, err := goObject.Get("_inst")
	if err != nil {
		return safejs.Value{}, err
	}
	if inst.Type() != safejs.TypeObject {
		return safejs.Value{}, errors.New("the Go object has no instance (_inst)")
	}
	exports, err := inst.Get("exports")
	if err != nil {
		return safejs.Value{}, err
	}
	mem, err := exports.Get("mem")
	if err != nil {
		return safejs.Value{}, err
	}
	memoryType, err := safejs.Global().Get("WebAssembly")
	if err == nil {
		memoryType, err = memoryType.Get("Memory")
	}
	if err != nil {
		return safejs.Value{}, err
	}
	if ok, err := mem.InstanceOf(memoryType); err != nil || !ok {
		return safejs.Value{}, errors.New("the Go instance exports no memory named mem")
	}
	return mem, nil
}
