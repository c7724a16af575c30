// nexttoken embeds report their content's height with a message
// {"context": "iframe.resize", "height": N}, on load, when it changes and
// when their frame is resized; this script sizes every nexttoken frame on
// the page to fit. One line per page, however many embeds: a second copy
// of the script does nothing. It listens only to frames on its own origin
// and touches no other frame.
(() => {
  if (window.nexttokenEmbeds) return;
  window.nexttokenEmbeds = true;
  const origin = new URL(document.currentScript ? document.currentScript.src : location.href).origin;
  const ours = (f) => {
    try {
      return new URL(f.src, location.href).origin === origin;
    } catch {
      return false;
    }
  };
  addEventListener("message", (e) => {
    if (e.origin !== origin || !e.data || e.data.context !== "iframe.resize") return;
    const height = Number(e.data.height);
    if (!(height > 0 && height < 100000)) return;
    for (const f of document.querySelectorAll("iframe"))
      if (f.contentWindow === e.source && ours(f)) f.style.height = Math.ceil(height) + "px";
  });
  // A frame that reported its height before this script ran is resized by
  // a pixel, so that it reports again.
  for (const f of document.querySelectorAll("iframe"))
    if (ours(f)) f.style.height = f.getBoundingClientRect().height + 1 + "px";
})();
