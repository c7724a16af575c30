// The engine in a worker of its own: the session of a model the reader
// brings runs here, off the page's thread, so that the page answers a
// click while a step, a prompt or a download goes on. The worker runs the
// page's own program (app.wasm), which sees it is in this worker
// (nexttokenEngineWorker) and serves the engine instead of the page. This
// one file is both sides: loaded in the page (the program loads it with
// nexttokenScript) it defines nexttokenEngineStart; started as a worker it
// runs the program.
//
// The page's requests and the engine's answers are ArrayBuffers, moved,
// not copied (wasm/play's wire). Everything else is a small object: the
// start, downloads and their progress, the prefill's progress and its
// Stop, User Timing marks and attributes for the page's root, and the
// chat template's calls, which the page's own chat engine runs
// (web/chat-worker.js).

if (typeof document !== "undefined") {
  // In the page. nexttokenEngineStart(wasm, simd, threads, receive) starts
  // the worker on the program at wasm (the module the page compiled, when
  // it has one), with the SIMD kernels unless simd is false and their
  // products on threads threads (web/kernel-threads.js) where the program's
  // memory is shared, and gives it each message of the engine's that is
  // the program's; it returns the function that posts to the engine.
  const script = document.currentScript.src;
  globalThis.nexttokenEngineStart = (wasm, simd, threads, receive) => {
    const worker = new Worker(script);
    const post = (message) => message instanceof ArrayBuffer ? worker.postMessage(message, [message]) : worker.postMessage(message);
    const chat = async ({id, wasm, call, args}) => {
      try {
        if (typeof nexttokenChatCall !== "function") await nexttokenScript(wasm.replace(/chat\.wasm$/, "chat-worker.js"));
        post({chatAnswer: {id, result: await nexttokenChatCall(wasm, call, args)}});
      } catch (err) {
        post({chatAnswer: {id, error: String(err?.message ?? err)}});
      }
    };
    worker.onmessage = ({data}) => {
      if (data.mark) performance.mark(data.mark);
      else if (data.attr) document.documentElement.setAttribute(data.attr[0], data.attr[1]);
      else if (data.chat) chat(data.chat);
      else receive(data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      receive({failed: "its worker failed: " + event.message});
    };
    const exec = document.querySelector('script[src$="wasm_exec.js"]')?.src;
    Promise.resolve(globalThis.nexttokenModule).catch(() => null).then((module) => {
      worker.postMessage({exec, wasm, simd, threads, module: module instanceof WebAssembly.Module ? module : null});
    });
    return post;
  };
} else {
  // In the worker. The page's first message starts the program: {exec,
  // wasm, simd, threads, module}; the program answers {ready: true} once
  // it serves, or this script {failed}. Messages that come meanwhile wait.
  let deliver = null;
  const waiting = [];
  const chats = new Map(); // the chat template's calls out, by id
  let chatID = 0;
  globalThis.nexttokenScript = async (url) => importScripts(url);
  globalThis.nexttokenChatCall = (wasm, call, args) => new Promise((resolve, reject) => {
    const id = ++chatID;
    chats.set(id, {resolve, reject});
    postMessage({chat: {id, wasm, call, args}});
  });
  const start = async ({exec, wasm, simd, threads, module}) => {
    try {
      if (!exec) throw new Error("the page has no wasm_exec.js");
      importScripts(exec);
      module ??= await WebAssembly.compileStreaming(fetch(wasm));
      const go = new Go();
      const instance = await nexttokenInstantiate(module, go.importObject);
      globalThis.nexttokenEngineWorker = {
        simd,
        threads,
        // listen gives the program the page's messages, those that
        // waited first; post sends one to the page.
        listen(f) {
          deliver = f;
          for (const data of waiting.splice(0)) f(data);
        },
        post(message) {
          if (message instanceof ArrayBuffer) postMessage(message, [message]);
          else postMessage(message);
        },
        // pause lets the worker read the page's messages (a Stop) in the
        // middle of the program's work, sooner than a timer would.
        pause() {
          return new Promise((resolve) => {
            const channel = new MessageChannel();
            channel.port1.onmessage = resolve;
            channel.port2.postMessage(0);
          });
        },
      };
      go.run(instance).then(() => postMessage({failed: "the program ended"})); // it posts {ready: true} once it serves
    } catch (err) {
      postMessage({failed: String(err?.message ?? err)});
    }
  };
  onmessage = ({data}) => {
    if (data?.chatAnswer) {
      const {id, result, error} = data.chatAnswer;
      const call = chats.get(id);
      chats.delete(id);
      if (error !== undefined) call?.reject(new Error(error));
      else call?.resolve(result);
      return;
    }
    if (data?.exec !== undefined && !globalThis.nexttokenEngineWorker) {
      start(data);
      return;
    }
    if (deliver) deliver(data);
    else waiting.push(data);
  };
}
