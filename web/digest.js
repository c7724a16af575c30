// A worker that hashes a model's bytes with the browser's SHA-256
// (crypto.subtle.digest), off the page's thread: Chromium computes a digest
// on the calling thread, over a second for a gigabyte. wasm/ui's
// startDigest starts one for each sum; it ends once it has answered. Its
// message is the bytes: an ArrayBuffer (moved to it), or File objects,
// which it reads here, one after the other. It answers {sum} (an
// ArrayBuffer of 32 bytes) or {error}.
onmessage = async ({data}) => {
  try {
    const bytes = data instanceof ArrayBuffer ? data : await new Blob(data).arrayBuffer();
    postMessage({sum: await crypto.subtle.digest("SHA-256", bytes)});
  } catch (e) {
    postMessage({error: String(e)});
  }
  close();
};
