package wasmsimd

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGenerateReproducesModules checks that the embedded modules, the
// fetched ones in web/kernels and fetched.go's hashes are Generate's, and
// that each module is small enough for Chromium to compile synchronously.
func TestGenerateReproducesModules(t *testing.T) {
	modules := map[string][]byte{"matvec.wasm": matvecModule, "q5_0.wasm": q5_0Module, "q4_k.wasm": q4_KModule, "q6_k.wasm": q6_KModule, "attention.wasm": attentionModule, "swiglu.wasm": swigluModule, "quantize.wasm": quantizeModule}
	for _, file := range FetchedFiles() {
		b, err := os.ReadFile(filepath.Join(fetchedDir, file))
		if err != nil {
			t.Fatal(err)
		}
		modules[file] = b
	}
	generated := Generate()
	if len(generated) != len(modules) {
		t.Errorf("Generate gives %d modules, %d are embedded or fetched", len(generated), len(modules))
	}
	for name, got := range generated {
		if !bytes.Equal(got, modules[name]) {
			t.Errorf("Generate gives %d bytes that differ from %s's %d: run go generate ./engine/internal/wasmsimd", len(got), name, len(modules[name]))
		}
		if len(got) > maxSyncModule {
			t.Errorf("%s is %d bytes; Chromium compiles at most %d synchronously", name, len(got), maxSyncModule)
		}
	}
	source, err := os.ReadFile("fetched.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(source, FetchedSource()) {
		t.Error("fetched.go is not FetchedSource's: run go generate ./engine/internal/wasmsimd")
	}
}

// fetchedDir is where the fetched modules are, from this package's folder.
const fetchedDir = "../../../web/kernels"

func TestLEB128(t *testing.T) {
	for _, c := range []struct {
		unsigned uint32
		signed   int32
		u, s     []byte
	}{
		// The examples of the specification's section 5.2.2 and the edges.
		{0, 0, []byte{0x00}, []byte{0x00}},
		{63, 63, []byte{0x3F}, []byte{0x3F}},
		{64, 64, []byte{0x40}, []byte{0xC0, 0x00}},
		{127, -1, []byte{0x7F}, []byte{0x7F}},
		{128, -64, []byte{0x80, 0x01}, []byte{0x40}},
		{624485, -65, []byte{0xE5, 0x8E, 0x26}, []byte{0xBF, 0x7F}},
		{1<<32 - 1, -1 << 31, []byte{0xFF, 0xFF, 0xFF, 0xFF, 0x0F}, []byte{0x80, 0x80, 0x80, 0x80, 0x78}},
	} {
		if got := appendU32(nil, c.unsigned); !bytes.Equal(got, c.u) {
			t.Errorf("unsigned %d: % x, want % x", c.unsigned, got, c.u)
		}
		if got := appendI32(nil, c.signed); !bytes.Equal(got, c.s) {
			t.Errorf("signed %d: % x, want % x", c.signed, got, c.s)
		}
	}
}
