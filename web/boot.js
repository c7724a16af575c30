// nexttoken's boot: go-app's app.js calls nexttokenBoot(start,
// registerWorker) instead of starting the WebAssembly program and
// registering its service worker at once (the server and the export patch
// it so). The playground's own page starts at once. An embed starts
// when its frame comes near the reader's viewport or the reader touches
// it, and the embeds of one page start one after another, each once the
// one before is ready: a page of ten embeds boots the ones read, not ten
// programs together. Meanwhile a page the server prerendered shows its
// session's real numbers: app.css shows it until the live page is ready
// and painted (data-painted), and then it goes.

// Before the page's body is parsed (this script is in its head): whether
// the link has a fragment or a query, which a prerendered page may not
// have been drawn for (app.css).
if (location.hash.length > 1) document.documentElement.dataset.away = "hash";
else if (location.search.length > 1) document.documentElement.dataset.away = "query";

// nexttokenCompile(source) fetches (source a URL) and compiles the
// program, or compiles what a fetch answered (a Response or its promise),
// in a worker, web/warm-up.js: off the page's thread, where the browser's
// streaming compiler would take 40–70 ms of it. It resolves to the module.
// The worker then runs the program's start, the Go runtime's and its
// packages', on it (nexttokenWarmUp(module) for a module compiled
// elsewhere): the browser compiles each function as it first runs, and
// shares the code, so the page's own start, which app.js runs once the
// warm-up is done (a second at most), runs code compiled already: a task
// of 10–30 ms, not of 60–170. Without workers, the page does it all.
// nexttokenWarmUp.prepare() starts the worker early.
{
  const script = new URL("warm-up.js", document.currentScript.src).href;
  const warmUps = new WeakMap();
  let prepared = null;
  const newWorker = () => {
    if (typeof Worker !== "function") return null;
    try {
      return new Worker(script);
    } catch (err) {
      console.warn("the program starts without a warm-up:", err);
      return null;
    }
  };
  const takeWorker = () => {
    const worker = prepared ?? newWorker();
    prepared = null;
    return worker;
  };
  const execScript = () => document.querySelector('script[src$="wasm_exec.js"]')?.src;
  // warmUp has worker compile (or take) the module and warm it up: a
  // promise of the module; warmUps holds that of its warm-up.
  const warmUp = (worker, message, transfer) => new Promise((resolveModule, failed) => {
    let late, warmedUp;
    const warmed = new Promise((resolve) => (warmedUp = resolve));
    const done = () => {
      clearTimeout(late);
      worker.terminate();
      warmedUp();
    };
    const have = (module) => {
      late = setTimeout(done, 1000);
      warmUps.set(module, warmed);
      resolveModule(module);
    };
    worker.onmessage = ({data}) => {
      if (data?.module) {
        // The page's resource timing does not see a worker's download.
        const {at, ...detail} = data.received ?? {};
        if (at) performance.mark("nexttoken:program-received", {startTime: at - performance.timeOrigin, detail});
        return have(data.module);
      }
      if (data?.warmedUp) performance.mark("nexttoken:warmed-up");
      failed(new Error(data?.failed ?? "the program's worker ended")); // unless it had the module
      done();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      failed(new Error(event.message));
      done();
    };
    worker.postMessage(message, transfer); // throws where the body cannot be transferred
    if (message.module) have(message.module);
  });
  globalThis.nexttokenCompile = async (source) => {
    const exec = execScript();
    let worker = exec ? takeWorker() : null;
    if (typeof source === "string") {
      if (worker) {
        try {
          return await warmUp(worker, {exec, url: new URL(source, location.href).href});
        } catch (err) {
          console.warn("the page compiles the program itself:", err);
          worker = null; // it has ended
        }
      }
      source = fetch(source);
    }
    const response = await source;
    if (worker && response.ok && response.body) {
      try {
        return await warmUp(worker, {exec, body: response.body}, [response.body]);
      } catch (err) {
        worker.terminate();
        if (response.bodyUsed || response.body.locked) throw err;
        console.warn("the page compiles the program itself:", err);
      }
    }
    return WebAssembly.compileStreaming ? WebAssembly.compileStreaming(response) : WebAssembly.compile(await response.arrayBuffer());
  };
  globalThis.nexttokenWarmUp = (module) => {
    const exec = execScript();
    if (!warmUps.has(module) && module instanceof WebAssembly.Module && exec) {
      const worker = takeWorker();
      if (worker) warmUp(worker, {exec, module}).catch(() => {});
    }
    return warmUps.get(module) ?? (globalThis.scheduler?.yield ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve)));
  };
  nexttokenWarmUp.prepare = () => {
    prepared ??= newWorker();
  };
}

// The playground's own page, whose head names its program (meta
// nexttoken-program): compile it while the page is parsed and drawn;
// app.js instantiates it (nexttokenInstantiate, of wasm_exec.js as the
// server sends it), or loads it itself if this fails. A page that asks for
// threads names the program on a shared memory (web/shared/app.wasm): a
// browser that does not isolate that page after all fetches app.wasm.
{
  const wasm = document.querySelector("meta[name=nexttoken-program]");
  if (wasm && WebAssembly.compileStreaming) {
    const program = new URL(wasm.content, location.href).href;
    const shared = program.endsWith("/shared/app.wasm");
    const href = shared && !globalThis.crossOriginIsolated ? program.replace(/\/shared\/app\.wasm$/, "/app.wasm") : program;
    globalThis.nexttokenModule = nexttokenCompile(href).catch((err) => {
      console.warn("compiling the program early failed, so app.js loads it:", err);
      return null;
    });
  }
}

// Before the program is live, the server's page takes the reader's steps:
// it comes with the page one step on (the template #next-step, for the
// root's data-next), which Step puts in place in the click's own task (a
// fetch's answer would wait for the busy page), the address follows, and
// the next one is fetched. Once the program starts (nexttokenStarting) it
// opens the reader's first link and takes those steps again, so that Undo
// takes them back. What the server's page could not take goes to the live
// page once its top is there: the fields' edits in order, the focus, then
// the steps not shown yet. A page with no next step (a static site's, an
// embed's, an ended session, edited fields) leaves every step to the live
// page.
{
  let waiting = 0, started = false, fetching = false, taken = null;
  const edits = []; // [id, "input" or "change"] of the server's page's fields, in order
  const handOver = () => {
    const root = document.querySelector("#playground[data-top], #playground[data-painted]");
    if (!root) return false;
    for (const [id, type] of edits.splice(0)) {
      const from = document.querySelector(`#prerendered [id="${id}"]`), to = root.querySelector(`[id="${id}"]`);
      if (!from || !to) continue;
      if (from.type === "file") to.files = from.files;
      else if (from.type === "checkbox" || from.type === "radio") to.checked = from.checked;
      else to.value = from.value;
      to.dispatchEvent(new Event(type, {bubbles: true}));
    }
    const focused = document.activeElement;
    if (focused?.id && focused.closest("#prerendered")) {
      const to = root.querySelector(`[id="${focused.id}"]`);
      to?.focus();
      if (to && focused.selectionStart != null) to.setSelectionRange?.(focused.selectionStart, focused.selectionEnd, focused.selectionDirection);
    }
    const step = root.querySelector("#step");
    for (; waiting > 0; waiting--) step?.click();
    return true;
  };
  const onLivePage = () => {
    if (handOver()) return;
    const watch = new MutationObserver(() => handOver() && watch.disconnect());
    watch.observe(document.documentElement, {subtree: true, attributes: true, attributeFilter: ["data-top", "data-painted"]});
  };
  // fetchNext fetches the page of the link shown, for its next step's
  // template.
  const fetchNext = async (root) => {
    fetching = true;
    try {
      const response = await fetch(location.pathname + "?" + root.dataset.link);
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const next = page.getElementById("next-step");
      if (!response.ok || next?.dataset.link !== root.dataset.next) throw new Error("the server did not draw " + root.dataset.next);
      if (root.isConnected) root.after(document.adoptNode(next));
    } catch (err) {
      console.warn("the live page takes the next step:", err);
      started = true;
    } finally {
      fetching = false;
      advance();
    }
  };
  // parsed waits for the parser to reach the template after the root.
  let parsing = false;
  const parsed = () => {
    if (parsing) return;
    parsing = true;
    const done = () => {
      if (!parsing) return;
      parsing = false;
      watch.disconnect();
      advance();
    };
    const watch = new MutationObserver(() => document.getElementById("next-step") && done());
    watch.observe(document.body, {childList: true});
    document.addEventListener("DOMContentLoaded", done, {once: true});
  };
  // advance takes the steps waiting, while their pages are here, and
  // fetches the next one's.
  const advance = () => {
    for (;;) {
      const root = document.getElementById("prerendered"), link = root?.dataset.next;
      const next = document.getElementById("next-step");
      if (started || edits.length > 0 || !link) return waiting > 0 && onLivePage();
      if (!next && !taken && document.readyState === "loading") return parsed();
      if (next?.dataset.link !== link) return fetching || fetchNext(root);
      if (waiting === 0) return;
      taken = {from: taken?.from ?? root.dataset.link, steps: (taken?.steps ?? 0) + 1};
      next.remove();
      root.replaceWith(next.content.firstElementChild);
      document.querySelector("meta[name=nexttoken-prerendered]")?.setAttribute("content", link);
      history.replaceState(history.state, "", "?" + link);
      waiting--;
    }
  };
  const step = () => {
    waiting++;
    advance();
  };
  addEventListener("click", (e) => e.target instanceof Element && e.target.closest("#prerendered #step") && step());
  // → takes the next step, as on the live page, until its top is there.
  addEventListener("keydown", (e) => {
    if (e.key !== "ArrowRight" || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (!document.getElementById("prerendered") || document.querySelector("#playground[data-top], #playground[data-painted]")) return;
    if (e.target instanceof Element && e.target.closest("input, textarea, select, [contenteditable]")) return;
    e.preventDefault();
    step();
  });
  for (const type of ["input", "change"]) {
    addEventListener(type, (e) => e.target instanceof Element && e.target.id && e.target.closest("#prerendered") && edits.push([e.target.id, type]), true);
  }
  globalThis.nexttokenStarting = () => {
    started = true;
    onLivePage();
    return taken ?? undefined;
  };
}

// nexttokenBoot starts the program (start) when its time comes, and
// registers go-app's service worker (registerWorker) once the page is live
// and painted, so that its install, which fetches every file again, reads
// the browser's cache after the page's start. An embed registers none: it
// would download the program for a frame that may never start it.
globalThis.nexttokenBoot = (start, registerWorker) => {
  const prerendered = document.getElementById("prerendered");
  // A static host sends one prerendered page whatever the link: it shows
  // only the session it was drawn for.
  if (prerendered && (prerendered.dataset.link !== location.search.slice(1) || location.hash.length > 1)) {
    prerendered.remove();
    document.querySelector("meta[name=nexttoken-prerendered]")?.remove(); // the placeholder shows
  }
  const ready = new Promise((resolve) => {
    const check = () => {
      if (!document.querySelector("#playground[data-painted]")) return false;
      document.getElementById("prerendered")?.remove();
      document.getElementById("next-step")?.remove();
      resolve();
      return true;
    };
    if (check()) return;
    const watch = new MutationObserver(() => check() && watch.disconnect());
    watch.observe(document.body, {subtree: true, childList: true, attributes: true, attributeFilter: ["data-painted"]});
  });
  // An embed as the page reads the link (play.Embedded): embed, in any
  // case, given and not 0.
  const embed = [...new URLSearchParams(location.search)].find(([name]) => name.toLowerCase() === "embed")?.[1];
  if (embed === undefined || embed === "0") {
    ready.then(() => registerWorker());
    start();
    return;
  }
  const boot = () => {
    nexttokenWarmUp.prepare(); // while the program downloads
    start();
  };
  let started = false;
  let near;
  const touches = ["pointerdown", "keydown", "focusin"];
  const go = () => {
    if (started) return;
    started = true;
    near?.disconnect();
    touches.forEach((t) => removeEventListener(t, go, true));
    // One boot at a time on the page: the lock is held until this embed
    // is ready, or for a few seconds if it never is.
    if (!navigator.locks) {
      boot();
      return;
    }
    navigator.locks.request("nexttoken-boot", () => {
      boot();
      return Promise.race([ready, new Promise((r) => setTimeout(r, 4000))]);
    });
  };
  touches.forEach((t) => addEventListener(t, go, true));
  if (!globalThis.IntersectionObserver) {
    go();
    return;
  }
  near = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && go(), {rootMargin: "200px"});
  near.observe(document.body);
};

// nexttokenScript loads the script at url, for the program (web/chat-worker.js):
// a promise of its load.
globalThis.nexttokenScript = (url) => new Promise((resolve, reject) => {
  const s = document.createElement("script");
  s.onload = resolve;
  s.onerror = () => reject(new Error(url + " did not load"));
  s.src = url;
  document.head.append(s);
});
