// nexttoken's warm-up worker (web/boot.js): it compiles the program from
// its address (url) or bytes (body), posts {module, received}, then runs
// its start on it (or on module) so that the page runs that code compiled.
// The program sees the warm-up (nexttokenEngineWorker.warmUp) and ends;
// then {warmedUp: true}, or {failed}.
onmessage = async ({data: {exec, module, url, body}}) => {
  try {
    if (url || body) {
      module = await WebAssembly.compileStreaming(url ? fetch(url) : new Response(body, {headers: {"Content-Type": "application/wasm"}}));
      const entry = url && performance.getEntriesByName(url, "resource")[0];
      postMessage({module, received: entry && {url, at: performance.timeOrigin + entry.responseEnd, bytes: entry.transferSize, encoding: entry.contentEncoding}});
    }
    importScripts(exec);
    globalThis.nexttokenEngineWorker = {warmUp: true};
    const go = new Go();
    await go.run(await nexttokenInstantiate(module, go.importObject));
    postMessage({warmedUp: true});
  } catch (err) {
    postMessage({failed: String(err?.message ?? err)});
  }
};
