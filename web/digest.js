// A worker that reads a reader's model files and hashes model bytes with
// the browser's SHA-256 (crypto.subtle.digest), off the page's thread:
// Chromium computes a digest on the calling thread, over a second for a
// gigabyte. wasm/ui starts one for each sum. Its messages:
//   {read: [File, …]}: it reads the files, a chunk at a time, keeping
//     each whole, and answers each chunk as it comes with {file, at,
//     chunk} (the file's index, the chunk's offset and an ArrayBuffer
//     moved to the page, which copies it in at once), then {read: true};
//   {hash: [i, …]}: it answers the SHA-256 of the files it read, in that
//     order, one after the other, as {sum} (an ArrayBuffer of 32 bytes),
//     and ends;
//   an ArrayBuffer (moved to it): it answers its SHA-256 as {sum}, and
//     ends.
// A failure answers {error}, and ends.
const chunk = 16 << 20;
let kept = []; // the files {read} read, whole

const read = (file, at) => file.slice(at, Math.min(at + chunk, file.size)).arrayBuffer();

onmessage = async ({data}) => {
  try {
    if (data.read) {
      for (const [i, file] of data.read.entries()) {
        const whole = new Uint8Array(file.size);
        // The next chunk is asked for before this one is kept and sent:
        // the browser reads while the page copies.
        let next = file.size > 0 ? read(file, 0) : null;
        for (let at = 0; at < file.size; at += chunk) {
          const part = await next;
          if (at + chunk < file.size) next = read(file, at + chunk);
          whole.set(new Uint8Array(part), at);
          postMessage({file: i, at, chunk: part}, [part]);
        }
        kept.push(whole);
      }
      postMessage({read: true});
      return;
    }
    let bytes = data;
    if (data.hash) {
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
