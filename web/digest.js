// A worker that reads a reader's model files and hashes model bytes with
// the browser's SHA-256 (crypto.subtle.digest), off the page's thread:
// Chromium computes a digest on the calling thread, over a second for a
// gigabyte. wasm/ui starts one for each sum. Its messages:
//   {read: [File, …]}: it reads the files whole, each once, and answers
//     {read: [ArrayBuffer, …]}, moved to the page, which copies them in
//     and may send them back, as below;
//   an ArrayBuffer, or an array of them (moved to it): it answers their
//     SHA-256, one after the other, as {sum} (an ArrayBuffer of 32 bytes),
//     and ends.
// A failure answers {error}, and ends.
onmessage = async ({data}) => {
  try {
    if (data.read) {
      const read = [];
      for (const file of data.read) read.push(await file.arrayBuffer());
      postMessage({read}, read);
      return;
    }
    let bytes = data;
    if (Array.isArray(data)) {
      bytes = data[0];
      if (data.length > 1) {
        const all = new Uint8Array(data.reduce((n, b) => n + b.byteLength, 0));
        let at = 0;
        for (const b of data) {
          all.set(new Uint8Array(b), at);
          at += b.byteLength;
        }
        bytes = all;
      }
    }
    postMessage({sum: await crypto.subtle.digest("SHA-256", bytes)});
  } catch (e) {
    postMessage({error: String(e)});
  }
  close();
};
