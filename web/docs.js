// nexttoken embeds report their height; size each iframe to fit.
addEventListener("message", (e) => {
  if (!e.data || e.data.context !== "iframe.resize") return;
  for (const f of document.querySelectorAll("iframe"))
    if (f.contentWindow === e.source) f.style.height = e.data.height + "px";
});
