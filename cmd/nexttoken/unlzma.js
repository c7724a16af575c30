// nexttokenUnlzma decodes src, an LZMA stream in the .lzma format that
// "xz --format=lzma" writes, into a new Uint8Array of exactly size bytes.
// It throws an Error on anything else: a bad header, a stream that ends
// early, a distance before the start, or an output longer or shorter than
// size. It allocates size bytes and the model's tables, nothing more,
// whatever the input says.
function nexttokenUnlzma(src, size) {
  const fail = (why) => { throw new Error("app.wasm.lzma: " + why); };
  if (src.length < 18) fail("too short");
  let props = src[0];
  if (props >= 225) fail("bad properties");
  const lc = props % 9; props = (props / 9) | 0;
  const lp = props % 5, pb = (props / 5) | 0;
  let knownSize = false, headerSize = 0;
  for (let i = 12; i >= 5; i--) {
    if (src[i] !== 0xff) knownSize = true;
    headerSize = headerSize * 256 + src[i];
  }
  if (knownSize && headerSize !== size) fail("holds " + headerSize + " bytes, not " + size);
  const out = new Uint8Array(size);

  const prob = (n) => new Uint16Array(n).fill(1024);
  const literal = prob(0x300 << (lc + lp));
  const isMatch = prob(192), isRep = prob(12), isRepG0 = prob(12), isRepG1 = prob(12), isRepG2 = prob(12), isRep0Long = prob(192);
  const posSlot = prob(4 << 6), posSpecial = prob(115), align = prob(16);
  const lenCoder = () => ({ choice: prob(2), low: prob(16 << 3), mid: prob(16 << 3), high: prob(256) });
  const matchLen = lenCoder(), repLen = lenCoder();

  // The range decoder: range and code are below 2^32, kept in a
  // Float64Array, which the closures below update without boxing them.
  let pos = 13;
  const rc = new Float64Array(2); // range, code
  rc[0] = 0xffffffff;
  if (src[pos++] !== 0) fail("bad first byte");
  for (let i = 0; i < 4; i++) rc[1] = rc[1] * 256 + src[pos++];
  if (rc[1] === rc[0]) fail("bad first bytes");
  const end = src.length;
  // normalize shifts the next byte in once range is below 2^24.
  function normalize() {
    if (rc[0] < 0x1000000) {
      if (pos >= end) fail("ends early");
      rc[0] *= 256;
      rc[1] = rc[1] * 256 + src[pos++];
    }
  }
  function bit(probs, i) {
    const p = probs[i], range = rc[0], code = rc[1];
    const bound = (range >>> 11) * p;
    let b = 0;
    if (code < bound) {
      rc[0] = bound;
      probs[i] = p + ((2048 - p) >>> 5);
    } else {
      rc[0] = range - bound;
      rc[1] = code - bound;
      probs[i] = p - (p >>> 5);
      b = 1;
    }
    normalize();
    return b;
  }
  function direct(count) {
    let r = 0;
    for (; count > 0; count--) {
      rc[0] = rc[0] >>> 1;
      let b = 0;
      if (rc[1] >= rc[0]) {
        rc[1] -= rc[0];
        b = 1;
      }
      r = r * 2 + b;
      normalize();
    }
    return r;
  }
  function tree(bits, probs, offset) {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) + bit(probs, offset + m);
    return m - (1 << bits);
  }
  function reverseTree(bits, probs, offset) {
    let m = 1, sym = 0;
    for (let i = 0; i < bits; i++) {
      const b = bit(probs, offset + m);
      m = (m << 1) + b;
      sym |= b << i;
    }
    return sym;
  }
  function length(c, posState) {
    if (bit(c.choice, 0) === 0) return tree(3, c.low, posState << 3);
    if (bit(c.choice, 1) === 0) return 8 + tree(3, c.mid, posState << 3);
    return 16 + tree(8, c.high, 0);
  }
  function distance(len) {
    const slot = tree(6, posSlot, (len < 3 ? len : 3) << 6);
    if (slot < 4) return slot;
    const directBits = (slot >>> 1) - 1;
    let dist = (2 | (slot & 1)) * 2 ** directBits;
    if (slot < 14) return dist + reverseTree(directBits, posSpecial, dist - slot);
    return dist + direct(directBits - 4) * 16 + reverseTree(4, align, 0);
  }

  const pbMask = (1 << pb) - 1, lpMask = (1 << lp) - 1;
  let n = 0, state = 0, rep0 = 0, rep1 = 0, rep2 = 0, rep3 = 0;
  for (;;) {
    if (knownSize && n === size) break;
    const posState = n & pbMask;
    if (bit(isMatch, (state << 4) + posState) === 0) {
      if (n >= size) fail("longer than " + size + " bytes");
      const prev = n > 0 ? out[n - 1] : 0;
      const base = 0x300 * (((n & lpMask) << lc) + (prev >>> (8 - lc)));
      let sym = 1;
      if (state >= 7) {
        let match = out[n - rep0 - 1];
        do {
          const matchBit = (match >>> 7) & 1;
          match <<= 1;
          const b = bit(literal, base + ((1 + matchBit) << 8) + sym);
          sym = (sym << 1) | b;
          if (matchBit !== b) break;
        } while (sym < 0x100);
      }
      while (sym < 0x100) sym = (sym << 1) | bit(literal, base + sym);
      out[n++] = sym & 0xff;
      state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
      continue;
    }
    let len;
    if (bit(isRep, state) === 1) {
      if (n === 0) fail("a repeat before any byte");
      if (bit(isRepG0, state) === 0) {
        if (bit(isRep0Long, (state << 4) + posState) === 0) {
          if (n >= size) fail("longer than " + size + " bytes");
          state = state < 7 ? 9 : 11;
          out[n] = out[n - rep0 - 1];
          n++;
          continue;
        }
      } else {
        let dist;
        if (bit(isRepG1, state) === 0) {
          dist = rep1;
        } else {
          if (bit(isRepG2, state) === 0) {
            dist = rep2;
          } else {
            dist = rep3;
            rep3 = rep2;
          }
          rep2 = rep1;
        }
        rep1 = rep0;
        rep0 = dist;
      }
      len = length(repLen, posState);
      state = state < 7 ? 8 : 11;
    } else {
      rep3 = rep2; rep2 = rep1; rep1 = rep0;
      len = length(matchLen, posState);
      state = state < 7 ? 7 : 10;
      rep0 = distance(len);
      if (rep0 === 0xffffffff) break; // the end marker
    }
    len += 2;
    if (rep0 >= n) fail("a distance before the start");
    if (len > size - n) fail("longer than " + size + " bytes");
    let from = n - rep0 - 1;
    if (rep0 + 1 >= len) {
      out.copyWithin(n, from, from + len);
      n += len;
    } else {
      for (const stop = n + len; n < stop; n++, from++) out[n] = out[from];
    }
  }
  if (n !== size) fail("holds " + n + " bytes, not " + size);
  return out;
}

// nexttokenFetchWasm is go-app's fetchWithProgress for app.wasm on a static
// site, where hosts send files as they are: it fetches url's .lzma copy, a
// sixth of url's size, and decodes it into the size bytes of url. If that
// fails (no copy, a host that answers with something else, a browser that
// cannot), it fetches url itself.
async function nexttokenFetchWasm(url, size, progress) {
  try {
    const response = await fetchWithProgress(url + ".lzma", progress);
    if (!response.ok) throw new Error(url + ".lzma: HTTP " + response.status);
    const packed = new Uint8Array(await response.arrayBuffer());
    const start = performance.now();
    const wasm = nexttokenUnlzma(packed, size);
    try {
      // For devtools and the tests; browsers before User Timing 3 throw.
      performance.measure("app.wasm.lzma decoded", { start });
    } catch { }
    return new Response(wasm, { headers: { "Content-Type": "application/wasm" } });
  } catch (err) {
    console.warn("fetching app.wasm as it is:", err);
    return fetchWithProgress(url, progress);
  }
}
