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
