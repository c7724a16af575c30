// nexttoken's kernel threads: the SIMD kernels (engine/internal/wasmsimd)
// run on more than one thread when the Go program's memory is shared (a
// page that is cross-origin isolated, or node). Each thread instantiates
// the kernel modules on that one memory, which holds the weights once, and
// runs its share of a product's rows; rows are independent, so the numbers
// are the single thread's, bit for bit.
//
// The Go program calls nexttokenKernelThreads(threads, memory, modules,
// names, control, shares) once: it starts threads − 1 threads and returns
// run, which Go calls (without arguments, so that a step allocates
// nothing) for each product it splits. control is the address of 8 int32s
// in Go's memory (the words below); shares that of threads blocks of 10
// uint32s, each the arguments of one share, which Go writes before run.
// The caller's thread runs share 0 itself.
//
// The same file is the threads' own script: in a browser a Worker of it,
// under node a worker_threads Worker.
"use strict";

const kernelControl = {seq: 0, kernel: 1, done: 2, ready: 3, active: 4};

// kernelSpins is how many times a thread looks for its next work before
// it sleeps (Atomics.wait): about a millisecond.
const kernelSpins = 100000;

// kernelBound instantiates modules on memory and returns the exports
// names, each bound to the address args.
function kernelBound(memory, modules, names, args) {
  const bound = [];
  const exports = {};
  for (const module of modules) Object.assign(exports, new WebAssembly.Instance(module, {env: {mem: memory}}).exports);
  for (const name of names) bound.push(exports[name].bind(null, args));
  return bound;
}

// kernelServe is a thread's loop: it waits for the next product, runs its
// share and says it is done, for as long as the program runs.
function kernelServe({memory, modules, names, control, shares, index}) {
  const ctl = new Int32Array(memory.buffer, control, 8);
  const kernels = kernelBound(memory, modules, names, shares + index * 40);
  let seen = Atomics.load(ctl, kernelControl.seq);
  Atomics.add(ctl, kernelControl.ready, 1);
  for (;;) {
    // Spin a while before sleeping: a step's products come microseconds
    // apart, and waking a sleeping thread costs more than that.
    for (let spins = 0; Atomics.load(ctl, kernelControl.seq) === seen; spins++) {
      if (spins > kernelSpins) Atomics.wait(ctl, kernelControl.seq, seen);
    }
    seen = Atomics.load(ctl, kernelControl.seq);
    if (index < Atomics.load(ctl, kernelControl.active)) kernels[Atomics.load(ctl, kernelControl.kernel)]();
    Atomics.add(ctl, kernelControl.done, 1);
    Atomics.notify(ctl, kernelControl.done);
  }
}

const kernelNode = typeof process === "object" && typeof process.versions?.node === "string";

if (kernelNode && !require("worker_threads").isMainThread) {
  kernelServe(require("worker_threads").workerData);
} else if (!kernelNode && typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
  self.onmessage = (e) => kernelServe(e.data);
} else {
  // The script of this file, for the threads.
  const kernelScript = kernelNode ? __filename : document.currentScript?.src;
  globalThis.nexttokenKernelThreads = (threads, memory, modules, names, control, shares) => {
    const ctl = new Int32Array(memory.buffer, control, 8);
    for (let index = 1; index < threads; index++) {
      const data = {memory, modules, names, control, shares, index};
      if (kernelNode) {
        const {Worker} = require("worker_threads");
        new Worker(kernelScript, {workerData: data}).unref();
      } else {
        new Worker(kernelScript).postMessage(data);
      }
    }
    const kernels = kernelBound(memory, modules, names, shares);
    // A window may not block (Atomics.wait): it spins.
    const canWait = kernelNode || typeof WorkerGlobalScope !== "undefined";
    return () => {
      const others = threads - 1;
      Atomics.store(ctl, kernelControl.done, 0);
      Atomics.add(ctl, kernelControl.seq, 1);
      Atomics.notify(ctl, kernelControl.seq);
      kernels[Atomics.load(ctl, kernelControl.kernel)]();
      // The others' shares end about when the caller's does: spin, and
      // sleep only if they are late.
      for (let done, spins = 0; (done = Atomics.load(ctl, kernelControl.done)) < others; spins++) {
        if (canWait && spins > kernelSpins) Atomics.wait(ctl, kernelControl.done, done);
      }
    };
  };
}
