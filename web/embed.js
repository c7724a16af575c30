// nexttoken embeds report their content's height with a message
// {"context": "iframe.resize", "height": N}, on load, when it changes and
// when their frame is resized; this script sizes every nexttoken frame on
// the page to fit. One line per page, however many embeds: a second copy
// of the script does nothing. It listens only to frames on its own origin
// and touches no other frame.
//
// A frame may name its embed in data-src instead of src (with a
// <noscript> copy that has src, for readers without scripts): the ones in
// the window load as soon as the page is parsed; the others once the page
// has loaded, frames with src included, one after another in the page's
// order, or at once when the reader scrolls to one. The frames of one page
// share its main thread, so the first screen's are drawn first.
(() => {
  if (window.nexttokenEmbeds) return;
  window.nexttokenEmbeds = true;
  const origin = new URL(document.currentScript ? document.currentScript.src : location.href).origin;
  const ours = (src) => {
    try {
      return new URL(src, location.href).origin === origin;
    } catch {
      return false;
    }
  };
  addEventListener("message", (e) => {
    if (e.origin !== origin || !e.data || e.data.context !== "iframe.resize") return;
    const height = Number(e.data.height);
    if (!(height > 0 && height < 100000)) return;
    for (const f of document.querySelectorAll("iframe"))
      if (f.contentWindow === e.source && ours(f.src)) f.style.height = Math.ceil(height) + "px";
  });
  // A frame that reported its height before this script ran is resized by
  // a pixel, so that it reports again.
  for (const f of document.querySelectorAll("iframe[src]"))
    if (ours(f.src)) f.style.height = f.getBoundingClientRect().height + 1 + "px";

  const waiting = [...document.querySelectorAll("iframe[data-src]:not([src])")].filter((f) => ours(f.dataset.src));
  if (waiting.length === 0) return;
  let loading = null;
  const load = (f) => {
    const i = waiting.indexOf(f);
    if (i < 0) return;
    waiting.splice(i, 1);
    seen?.unobserve(f);
    f.src = f.dataset.src;
    return f;
  };
  // The next frame in the page's order, once the one before has loaded.
  const next = () => {
    if (loading || waiting.length === 0) return;
    loading = load(waiting[0]);
    loading.addEventListener("load", () => {
      loading = null;
      next();
    }, {once: true});
  };
  const seen = globalThis.IntersectionObserver &&
    new IntersectionObserver((entries) => entries.forEach((e) => e.isIntersecting && document.readyState === "complete" && load(e.target)));
  waiting.forEach((f) => seen?.observe(f));
  const inWindow = () => waiting.filter((f) => {
    const box = f.getBoundingClientRect();
    return box.bottom > 0 && box.top < innerHeight;
  }).forEach(load);
  if (document.readyState === "loading") addEventListener("DOMContentLoaded", inWindow, {once: true});
  else inWindow();
  const start = () => {
    inWindow();
    next();
  };
  if (document.readyState === "complete") start();
  else addEventListener("load", start, {once: true});
})();
