// The chat template engine, web/chat.wasm (wasm/chat), run in a worker of
// its own, so that a template that never ends, which a file someone brings
// may have, costs that worker, which the page ends, and never the page's
// thread. This one file is both sides: loaded in the page (wasm/ui's
// attachChat loads it with nexttokenScript) it defines nexttokenChatCall;
// started as a worker it runs the program.

// chatTimeLimit is the most one call may take, in milliseconds. Real
// templates render in milliseconds; one that loops over ranges nested
// deep (package chat bounds each range, not their product) would run for
// hours.
const chatTimeLimit = 2000;

if (typeof document !== "undefined") {
  // In the page. nexttokenChatCall(wasm, call, args) calls the program at
  // wasm's function call (nexttokenChat's render or endOfTurn) with args,
  // in the worker, which it starts first if there is none: a promise of
  // the answer ({prompt}, {token} or {error}), rejected when the engine
  // does not start or the call runs out of time, which ends the worker
  // (the next call starts another). Calls wait for the one before.
  const script = document.currentScript.src;
  let worker = null; // a promise of the running worker's post
  let queue = Promise.resolve();
  const start = (wasm) => new Promise((resolve, reject) => {
    const w = new Worker(script);
    let answer = null; // the pending call's resolve
    w.onmessage = ({data}) => answer?.(data);
    w.onerror = (event) => {
      event.preventDefault();
      answer?.({error: "its worker failed: " + event.message});
    };
    const stop = () => w.terminate();
    const post = (message, limit) => new Promise((resolve, reject) => {
      const timer = limit && setTimeout(() => {
        stop();
        worker = null;
        reject(new Error(`the chat template did not finish within ${limit / 1000} s, so it may never end: the page stopped it`));
      }, limit);
      answer = (data) => {
        clearTimeout(timer);
        answer = null;
        resolve(data);
      };
      w.postMessage(message);
    });
    const exec = document.querySelector('script[src$="wasm_exec.js"]')?.src;
    // A static site (make static: its app.js has nexttokenFetchWasm) may be
    // on a host that compresses nothing: the worker fetches the gzip copy.
    const gzip = typeof nexttokenFetchWasm === "function";
    post({exec, wasm, gzip}, 0).then((data) => {
      if (data.ready) return resolve(post);
      stop();
      reject(new Error(`the chat template engine (${wasm}) did not start: ${data.error}`));
    });
  });
  globalThis.nexttokenChatCall = (wasm, call, args) => {
    const run = async () => {
      if (!worker) worker = start(wasm).catch((err) => {
        worker = null;
        throw err;
      });
      const post = await worker;
      return call ? post({call, args}, chatTimeLimit) : {ready: true};
    };
    const result = queue.then(run, run);
    queue = result.catch(() => {});
    return result;
  };
} else {
  // In the worker. The page's first message names Go's wasm_exec.js and
  // the program, {exec, wasm, gzip}; the answer is {ready: true} once the
  // program runs, or {error}. Every later message is a call of the
  // program's nexttokenChat, {call, args}, answered with its result.
  let api = null;
  // program is the program's bytes: with gzip, its .gz copy (a quarter of
  // its size) decompressed here, unless the host sent it decompressed
  // already (Content-Encoding: gzip), or there is none.
  const program = async (wasm, gzip) => {
    if (gzip) {
      try {
        const response = await fetch(wasm + ".gz");
        if (!response.ok) throw new Error("the server answered " + response.status);
        const bytes = await response.arrayBuffer();
        const head = new Uint8Array(bytes, 0, 2);
        if (head[0] !== 0x1f || head[1] !== 0x8b) return bytes;
        return await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
      } catch (err) {
        console.warn("fetching " + wasm + " as it is:", err);
      }
    }
    const response = await fetch(wasm);
    if (!response.ok) throw new Error("the server answered " + response.status);
    return response.arrayBuffer();
  };
  onmessage = async ({data}) => {
    if (api) {
      try {
        postMessage(api[data.call](...data.args));
      } catch (err) {
        postMessage({error: String(err?.message ?? err)}); // the program exited, or no such call
      }
      return;
    }
    try {
      if (!data.exec) throw new Error("the page has no wasm_exec.js");
      importScripts(data.exec);
      const bytes = await program(data.wasm, data.gzip);
      const go = new Go();
      const {instance} = await WebAssembly.instantiate(bytes, go.importObject);
      go.run(instance); // main sets nexttokenChat before its first pause
      api = globalThis.nexttokenChat ?? null;
      postMessage(api ? {ready: true} : {error: "it set no nexttokenChat"});
    } catch (err) {
      postMessage({error: String(err?.message ?? err)});
    }
  };
}
