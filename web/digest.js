// A worker that reads a reader's model files and hashes model bytes with
// the browser's SHA-256 (crypto.subtle.digest), off the page's thread:
// Chromium computes a digest on the calling thread, over a second for a
// gigabyte. wasm/ui starts one for each sum. Its messages:
//   {read: [File, …]}: it reads the files a chunk at a time and answers
//     each chunk as it comes with {file, at, chunk} (the file's index, the
//     chunk's offset and an ArrayBuffer moved to the page, which copies it
//     in at once and moves it back as {file, at, back}, kept here), then
//     {read: true};
//   {hash: [i, …]}: it answers the SHA-256 of the files it read, in that
//     order, one after the other, as {sum} (an ArrayBuffer of 32 bytes),
//     and ends;
//   an ArrayBuffer (moved to it): it answers its SHA-256 as {sum}, and
//     ends.
// A failure answers {error}, and ends.
const chunk = 32 << 20;
let kept = []; // the files {read} reads, whole, as the page moves their chunks back

const read = (file, at) => file.slice(at, Math.min(at + chunk, file.size)).arrayBuffer();

onmessage = async ({data}) => {
  try {
    if (data.back) {
      kept[data.file].set(new Uint8Array(data.back), data.at);
      return;
    }
    if (data.read) {
      kept = data.read.map(file => new Uint8Array(file.size));
      for (const [i, file] of data.read.entries()) {
        // The next chunk is asked for before this one is sent: the
        // browser reads while the page copies.
        let next = file.size > 0 ? read(file, 0) : null;
        for (let at = 0; at < file.size; at += chunk) {
          const part = await next;
          if (at + chunk < file.size) next = read(file, at + chunk);
          postMessage({file: i, at, chunk: part}, [part]);
        }
      }
      postMessage({read: true});
      return;
    }
    let bytes = data;
    if (data.hash) {
      // Every chunk came back before this: the page asks once it has them all.
      const parts = data.hash.map(i => kept[i]);
      kept = [];
      bytes = parts[0];
      if (parts.length > 1) {
        bytes = new Uint8Array(parts.reduce((n, b) => n + b.byteLength, 0));
        let at = 0;
        for (const b of parts) {
          bytes.set(b, at);
          at += b.byteLength;
        }
      }
    }
    postMessage({sum: await crypto.subtle.digest("SHA-256", bytes)});
  } catch (e) {
    postMessage({error: String(e)});
  }
  close();
};
