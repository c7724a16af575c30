// nexttoken's hot views write the page through this one function, once a
// view is painted: a JSON list of [kind, id, value, name] writes, applied in
// order, each skipped when its element holds that value already. Kinds: h
// its HTML, s its style, v whether it shows, d whether it is disabled, a its
// attribute name. (The page's security policy allows no eval, so the
// function is this file.) A field's value (kind f) is compared with what
// it holds now, which the reader may have typed.
globalThis.nexttokenPaint = (json) => {
  for (const [kind, id, v, name] of JSON.parse(json)) {
    const el = document.getElementById(id);
    if (!el) continue;
    if (kind === "f") {
      if (el.value !== v) el.value = v;
      continue;
    }
    const key = "__nt" + kind + (name ?? "");
    if (el[key] === v) continue;
    el[key] = v;
    switch (kind) {
      case "h": el.innerHTML = v; break;
      case "s": el.style.cssText = v; break;
      case "v": el.hidden = !v; break;
      case "d": el.disabled = v; break;
      case "a": el.setAttribute(name, v); break;
    }
  }
};

// The token popover, #token-tip: wasm/ui/popover.go says when it shows
// and writes its content (nexttokenTip).
(() => {
  let timer = 0, anchor = null;
  const tip = () => document.getElementById("token-tip");
  const chipOf = (t) => t instanceof Element ? t.closest("#tokens .tok:not(.next)") : null;
  // A script's event may target the window, which is no node.
  const nodeOf = (t) => t instanceof Node ? t : null;
  const textOf = (t) => document.getElementById("text")?.contains(nodeOf(t));
  const hide = () => {
    clearTimeout(timer);
    const el = tip();
    if (el && !el.hidden) el.hidden = true;
    anchor?.removeAttribute("aria-describedby");
    anchor = null;
  };
  // Below box, or above when there is more room there; on screen.
  const show = (kind, n, box, chip) => {
    const el = tip(), html = el && globalThis.nexttokenTip?.(kind, n);
    if (!html) return hide();
    anchor?.removeAttribute("aria-describedby");
    el.innerHTML = html;
    el.style.cssText = "left:0;top:0";
    el.hidden = false;
    const w = innerWidth, h = innerHeight, width = el.offsetWidth, height = el.offsetHeight;
    const left = Math.max(8, Math.min(box.left, w - 8 - width));
    const above = box.bottom + 6 + height > h && box.top > h - box.bottom;
    el.style.cssText = `left:${left}px;` + (above ? `bottom:${h - box.top + 6}px` : `top:${box.bottom + 6}px`);
    anchor = chip;
    chip?.setAttribute("aria-describedby", "token-tip");
  };
  const showChip = (chip) => {
    const step = chip.dataset.step;
    show(step === undefined ? "prompt" : "step", Number(step ?? chip.dataset.token), chip.getBoundingClientRect(), chip);
  };
  const later = (ms, f) => { clearTimeout(timer); timer = setTimeout(f, ms); };
  const rest = () => Number(tip()?.dataset.rest);
  addEventListener("pointerover", (e) => {
    const chip = e.pointerType !== "touch" && chipOf(e.target);
    if (!chip) return;
    if (tip()?.hidden === false) showChip(chip); // moving along the strip
    else later(rest(), () => showChip(chip));
  });
  addEventListener("pointermove", (e) => {
    if (e.pointerType === "touch" || !textOf(e.target)) return;
    const x = e.clientX, y = e.clientY;
    later(rest(), () => {
      const at = document.caretPositionFromPoint?.(x, y), range = at ? null : document.caretRangeFromPoint?.(x, y);
      const node = at ? at.offsetNode : range?.startContainer;
      let n = at ? at.offset : range?.startOffset;
      if (!node || node.nodeType !== Node.TEXT_NODE || !textOf(node)) return hide();
      // The caret is at the nearer edge of the character under x.
      const r = document.createRange();
      if (n < node.length) { r.setStart(node, n); r.setEnd(node, n + 1); }
      if (n > 0 && (n >= node.length || r.getBoundingClientRect().left > x)) n--;
      show("text", n, {left: x, top: y - 12, bottom: y + 12}, null);
    });
  });
  addEventListener("pointerout", (e) => {
    const el = tip(), to = e.relatedTarget;
    const from = chipOf(e.target) || (textOf(e.target) && document.getElementById("text")) || (el?.contains(nodeOf(e.target)) && el);
    if (from && !from.contains(to) && !el?.contains(to) && !anchor?.contains(to)) hide();
  });
  addEventListener("focusin", (e) => { const chip = chipOf(e.target); if (chip?.matches(":focus-visible")) showChip(chip); });
  addEventListener("focusout", (e) => { if (chipOf(e.target)) hide(); });
  addEventListener("keydown", (e) => { if (e.key === "Escape") hide(); });
  addEventListener("pointerdown", (e) => {
    const chip = chipOf(e.target);
    if (!tip()?.contains(nodeOf(e.target))) hide();
    if (chip && e.pointerType === "touch") later(Number(tip()?.dataset.press), () => showChip(chip));
  });
  addEventListener("pointerup", (e) => { if (e.pointerType === "touch" && tip()?.hidden) clearTimeout(timer); });
  addEventListener("pointercancel", () => clearTimeout(timer));
})();
