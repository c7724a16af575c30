// Runs DIR/program (wasmshare's output) under node on a shared memory,
// with DIR/wasm_exec.js and the kernel threads' script:
//
//	node run.js DIR kernel-threads.js [args...]
"use strict";
globalThis.require = require;
globalThis.fs = require("fs");
globalThis.path = require("path");
globalThis.TextEncoder = require("util").TextEncoder;
globalThis.TextDecoder = require("util").TextDecoder;
globalThis.performance ??= require("performance");
globalThis.crypto ??= require("crypto");

const [dir, threads, ...args] = process.argv.slice(2);
require(path.join(dir, "wasm_exec.js"));
require(path.resolve(threads));
const program = "program";
const go = new Go();
go.argv = [program, ...args];
go.env = Object.assign({TMPDIR: require("os").tmpdir()}, process.env);
go.exit = process.exit;
WebAssembly.compile(fs.readFileSync(path.join(dir, program))).then((module) => {
  return nexttokenInstantiate(module, go.importObject);
}).then((instance) => {
  process.on("exit", (code) => {
    if (code === 0 && !go.exited) {
      go._pendingEvent = {id: 0};
      go._resume();
    }
  });
  return go.run(instance);
}).catch((err) => {
  console.error(err);
  process.exit(1);
});
