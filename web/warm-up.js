// nexttoken's warm-up worker (web/boot.js's nexttokenWarmUp): it runs the
// start of the page's program, the Go runtime's and its packages', on the
// module the page compiled, so that the browser compiles that code here,
// off the page's thread, and the page then runs it compiled. The program
// sees it is a warm-up (nexttokenEngineWorker.warmUp) and ends at once;
// the worker then posts {warmedUp: true}, or {failed}.
onmessage = async ({data: {exec, module}}) => {
  try {
    importScripts(exec);
    globalThis.nexttokenEngineWorker = {warmUp: true};
    const go = new Go();
    await go.run(await nexttokenInstantiate(module, go.importObject));
    postMessage({warmedUp: true});
  } catch (err) {
    postMessage({failed: String(err?.message ?? err)});
  }
};
