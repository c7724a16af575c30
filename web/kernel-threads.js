// nexttoken's kernel threads: the SIMD kernels (engine/internal/wasmsimd)
// run on more than one thread when the Go program's memory is shared (a
// page that is cross-origin isolated, or node). Each thread instantiates
// the kernel modules on that one memory, which holds the weights once, and
// runs shares of a product's rows; rows are independent, so the numbers
// are the single thread's, bit for bit.
//
// The Go program calls nexttokenKernelThreads(threads, memory, modules,
// names, control, shares, slots) once: it starts threads − 1 threads and returns
// run, which Go calls (without arguments, so that a step allocates
// nothing) for each product it splits, or batch of products. control is
// the address of 8 int32s in Go's memory (kernelControl's words); shares
// that of slots blocks of shareWords uint32s, each the arguments of one
// share and its kernel's index (the last word), which Go writes before
// run, with the number of shares in control.
//
// Every thread, the caller's too, takes shares until none is left, so a
// thread the system runs late leaves its shares to the others, and the
// caller waits only for the shares being run.
//
// The same file is the threads' own script: in a browser a Worker of it,
// under node a worker_threads Worker, named kernelThreadName.
"use strict";

// The words of control: the run's number (seq), its number of shares
// (active), the shares done, the threads started (ready), and the shares
// taken (next: the run's number, 20 bits, above 8 bits of shares taken,
// so that a thread that comes late cannot take a share of another run).
const kernelControl = {seq: 0, done: 2, ready: 3, active: 4, next: 5};

// A share's words in shares: its kernel's arguments, then its kernel's
// index in names.
const shareWords = 10;
const shareKernel = shareWords - 1;

// kernelSpins is how many times a thread looks for its next work before
// it sleeps (Atomics.wait): about a millisecond.
const kernelSpins = 100000;

// kernelBound instantiates modules on memory and returns, for each of
// names, the export bound to each share's arguments, bound[kernel][share],
// and the shares' words.
function kernelBound(memory, modules, names, shares, slots) {
  const exports = {};
  for (const module of modules) Object.assign(exports, new WebAssembly.Instance(module, {env: {mem: memory}}).exports);
  const bound = names.map((name) => Array.from({length: slots}, (_, s) => exports[name].bind(null, shares + s * 4 * shareWords)));
  return {bound, words: new Uint32Array(memory.buffer, shares, slots * shareWords)};
}

// kernelTake runs the shares of run seq that no thread has taken yet, and
// returns how many it ran.
function kernelTake(ctl, {bound, words}, seq) {
  const active = Atomics.load(ctl, kernelControl.active);
  let ran = 0;
  for (;;) {
    const next = Atomics.load(ctl, kernelControl.next);
    const share = next & 0xff;
    if (next >>> 8 !== (seq & 0xfffff) || share >= active) return ran;
    if (Atomics.compareExchange(ctl, kernelControl.next, next, next + 1) !== next) continue;
    bound[words[share * shareWords + shareKernel]][share]();
    ran++;
    Atomics.add(ctl, kernelControl.done, 1);
  }
}

// kernelServe is a thread's loop: it waits for the next product and takes
// its shares, for as long as the program runs.
function kernelServe({memory, modules, names, control, shares, slots}) {
  const ctl = new Int32Array(memory.buffer, control, 8);
  const kernels = kernelBound(memory, modules, names, shares, slots);
  let seen = Atomics.load(ctl, kernelControl.seq);
  Atomics.add(ctl, kernelControl.ready, 1);
  for (;;) {
    // Spin a while before sleeping: a step's products come microseconds
    // apart, and waking a sleeping thread costs more than that.
    for (let spins = 0; Atomics.load(ctl, kernelControl.seq) === seen; spins++) {
      if (spins > kernelSpins) Atomics.wait(ctl, kernelControl.seq, seen);
    }
    seen = Atomics.load(ctl, kernelControl.seq);
    if (kernelTake(ctl, kernels, seen) > 0) Atomics.notify(ctl, kernelControl.done);
  }
}

const kernelNode = typeof process === "object" && typeof process.versions?.node === "string";

// kernelThreadName names the threads' workers: a worker of another name
// (the engine's) may load this file to start threads of its own.
const kernelThreadName = "nexttoken kernel thread";

if (kernelNode && require("worker_threads").workerData?.name === kernelThreadName) {
  kernelServe(require("worker_threads").workerData);
} else if (!kernelNode && globalThis.name === kernelThreadName) {
  self.onmessage = (e) => kernelServe(e.data);
} else {
  // The script of this file, for the threads.
  const kernelScript = kernelNode ? __filename : globalThis.document?.currentScript?.src ?? new URL("kernel-threads.js", location.href).href;
  globalThis.nexttokenKernelThreads = (threads, memory, modules, names, control, shares, slots) => {
    const ctl = new Int32Array(memory.buffer, control, 8);
    for (let index = 1; index < threads; index++) {
      const data = {memory, modules, names, control, shares, slots, name: kernelThreadName};
      if (kernelNode) {
        const {Worker} = require("worker_threads");
        new Worker(kernelScript, {workerData: data}).unref();
      } else {
        new Worker(kernelScript, {name: kernelThreadName}).postMessage(data);
      }
    }
    const kernels = kernelBound(memory, modules, names, shares, slots);
    // A window may not block (Atomics.wait): it spins.
    const canWait = kernelNode || typeof WorkerGlobalScope !== "undefined";
    let seq = Atomics.load(ctl, kernelControl.seq);
    return () => {
      seq = (seq + 1) | 0;
      const active = Atomics.load(ctl, kernelControl.active);
      Atomics.store(ctl, kernelControl.done, 0);
      Atomics.store(ctl, kernelControl.next, (seq & 0xfffff) << 8);
      Atomics.store(ctl, kernelControl.seq, seq);
      Atomics.notify(ctl, kernelControl.seq);
      kernelTake(ctl, kernels, seq);
      // The others' shares end about when the caller's do: spin, and
      // sleep only if they are late.
      for (let done, spins = 0; (done = Atomics.load(ctl, kernelControl.done)) < active; spins++) {
        if (canWait && spins > kernelSpins) Atomics.wait(ctl, kernelControl.done, done);
      }
    };
  };
}
