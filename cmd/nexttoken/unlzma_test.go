//go:build !js

package main

import (
	"encoding/json"
	"os"
	"testing"
)

// unlzmaCases runs the page's LZMA decoder (unlzma.js) on the stream src
// of the bytes want, intact and damaged: the intact stream, and the same
// with its size in the header, must decode to want; a wrong size or a cut
// stream must throw the decoder's own Error; a stream with a byte changed
// must throw it or decode to want's length (LZMA has no checksum), never
// throw another exception or hang. It returns what went otherwise, and how
// many streams it tried.
const unlzmaCases = `((src, want) => {
	src = Uint8Array.from(src);
	want = Uint8Array.from(want);
	const bad = [];
	let tried = 0;
	const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
	// run decodes stream: outcome "match" must give want, "fail" must throw
	// the decoder's Error, "either" may also give size bytes.
	const run = (what, stream, size, outcome) => {
		tried++;
		try {
			const out = nexttokenUnlzma(stream, size);
			if (outcome === "fail" || out.length !== size || (outcome === "match" && !same(out, want))) bad.push(what + ": decoded " + out.length + " bytes");
		} catch (err) {
			if (outcome === "match" || !(err instanceof Error) || !err.message.startsWith("app.wasm.lzma: ")) bad.push(what + ": " + err);
		}
	};
	run("intact", src, want.length, "match");
	const sized = src.slice();
	new DataView(sized.buffer).setBigUint64(5, BigInt(want.length), true);
	run("intact with its size", sized, want.length, "match");
	for (const size of [0, 1, want.length - 1, want.length + 1]) run("size " + size, src, size, "fail");
	for (let n = 0; n < src.length; n++) run("cut to " + n, src.subarray(0, n), want.length, "fail");
	for (let i = 0; i < src.length; i++) {
		for (const flip of [1 << (i % 8), 0xff]) {
			const damaged = src.slice();
			damaged[i] ^= flip;
			run("byte " + i + " ^ " + flip, damaged, want.length, "either");
		}
	}
	return {bad: bad.slice(0, 10), count: bad.length, tried};
})`

// TestUnlzma runs unlzmaCases in Chromium, on a stream that
// "xz --format=lzma -9e" made (testdata/unlzma.txt.lzma).
func TestUnlzma(t *testing.T) {
	h := needBrowser(t)
	src, err := os.ReadFile("testdata/unlzma.txt.lzma")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/unlzma.txt")
	if err != nil {
		t.Fatal(err)
	}
	args, err := json.Marshal([][]int{ints(src), ints(want)})
	if err != nil {
		t.Fatal(err)
	}
	tab := openTab(t, h.browser)
	type outcome struct {
		Bad   []string `json:"bad"`
		Count int      `json:"count"`
		Tried int      `json:"tried"`
	}
	got := evaluate[outcome](tab, unlzmaJS+"\n"+unlzmaCases+"(..."+string(args)+")")
	t.Logf("%d streams decoded", got.Tried)
	if got.Count > 0 {
		t.Errorf("%d of %d streams went otherwise, such as:\n%v", got.Count, got.Tried, got.Bad)
	}
}

// ints is b as numbers, which JSON carries as an array.
func ints(b []byte) []int {
	n := make([]int, len(b))
	for i, x := range b {
		n[i] = int(x)
	}
	return n
}
