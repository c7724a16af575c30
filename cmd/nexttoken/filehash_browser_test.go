//go:build !js

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/gguf"
	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
)

// TestFileHash opens models from files in the page and checks that the
// page names each by the Ref Go's modelfile.RefOf gives the same files, the
// model's file first: a GGUF file, and a llama2.c checkpoint with its
// tokenizer.bin chosen in either order (the SHA-256 of the two files one
// after the other). The browser's own digest (crypto.subtle) makes the
// sum, and where the page has none (no secure context) Go's does, to the
// same Ref, as where no worker runs (the page then reads the files
// itself); the page's User Timing marks say which did.
func TestFileHash(t *testing.T) {
	ggufPath := writeGGUF(t, gguf.F16, nil)
	ckpt, tok := absolute(t, stories260KFile), absolute(t, tok512File)
	file := func(path string) modelfile.File {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return modelfile.File{Name: filepath.Base(path), Data: data}
	}
	for _, tc := range []struct {
		name   string
		chosen []string
		model  []string // the files in the Ref's order
	}{
		{"a GGUF file", []string{ggufPath}, []string{ggufPath}},
		{"a checkpoint and its tokenizer", []string{ckpt, tok}, []string{ckpt, tok}},
		{"the tokenizer first", []string{tok, ckpt}, []string{ckpt, tok}},
	} {
		files := make([]modelfile.File, len(tc.model))
		for i, p := range tc.model {
			files[i] = file(p)
		}
		want := modelfile.RefOf(files...).String()
		for _, page := range []struct {
			name, setup string // setup takes away what the page lacks
			mark        string // the mark saying who hashed
		}{
			{"the browser's digest", "", "nexttoken:hashed"},
			{"no crypto.subtle", `(Object.defineProperty(crypto, "subtle", {value: undefined}), crypto.subtle === undefined)`, "nexttoken:no-digest"},
			{"no worker", `(window.Worker = class { constructor() { throw new Error("no workers here"); } }, true)`, "nexttoken:no-digest"},
		} {
			t.Run(tc.name+", "+page.name, func(t *testing.T) {
				tab := openPage(t, "/")
				if page.setup != "" {
					evaluate[bool](tab, page.setup)
				} else if !evaluate[bool](tab, `isSecureContext && crypto.subtle !== undefined`) {
					t.Fatal("the test page has no crypto.subtle: it is not a secure context")
				}
				must(tab, "choose the files", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), tc.chosen))
				// "file::" is the model's name until the hash is in.
				waitFor(tab, `/^file:[^:]/.test(document.querySelector("#model").value) || document.querySelector("#file-status.field-error") !== null`)
				if got := evaluate[string](tab, `document.querySelector("#model").value`); got != want {
					t.Errorf("the page names the model %q, Go's RefOf %q (%s)", got, want, evaluate[string](tab, `document.querySelector("#file-status")?.textContent ?? ""`))
				}
				marks := evaluate[[]string](tab, `performance.getEntriesByType("mark").map(m => m.name).filter(n => n === "nexttoken:hashed" || n === "nexttoken:no-digest")`)
				if len(marks) != 1 || marks[0] != page.mark {
					t.Errorf("the page's marks are %q, want %s", marks, page.mark)
				}
			})
		}
	}
}

// holdDigest makes the page's workers started from now on hold back every
// SHA-256 they answer (web/digest.js's {sum}), and the engine's worker the
// new names it gives its models by their hash ({renamed}), until the page
// calls releaseDigest().
const holdDigest = `(() => {
	const Real = Worker;
	let held = [];
	window.releaseDigest = () => { const all = held; held = null; for (const f of all) f(); };
	window.Worker = class extends Real {
		get onmessage() { return super.onmessage; }
		set onmessage(f) { super.onmessage = e => (e.data?.sum || e.data?.renamed) && held ? held.push(() => f(e)) : f(e); }
	};
	return true;
})()`

// TestFilesBeforeTheirHash opens a GGUF file while the browser's SHA-256
// of it is held back: the page is ready, and steps, on the model named by
// its file; the share panel says the link waits for the hash and the
// address bar keeps the session before. Once the hash is in, the model
// is named by it, and the address is the link to the session as it is
// now, on the hashed name.
func TestFilesBeforeTheirHash(t *testing.T) {
	path := writeGGUF(t, gguf.F16, nil)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := modelfile.RefOf(modelfile.File{Name: filepath.Base(path), Data: data}).String()
	tab := openPage(t, "/")
	evaluate[bool](tab, holdDigest)
	before := evaluate[string](tab, `location.href`)
	must(tab, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
	waitFor(tab, `document.querySelector("#model").selectedOptions[0]?.textContent === `+jsString(filepath.Base(path)+" (your files)")+
		` && document.querySelector("#playground").dataset.ready === "true"`)
	if got := evaluate[string](tab, `document.querySelector("#model").value`); !strings.HasPrefix(got, "file::") {
		t.Errorf("before its hash, the page names the model %q", got)
	}
	if got := evaluate[string](tab, `document.querySelector("#link-length").textContent + (document.querySelector("#share-url") ? " and a link" : "")`); !strings.HasSuffix(got, "still computing: a moment…") {
		t.Errorf("before the hash, the share panel says %q", got)
	}
	evaluate[bool](tab, `(document.getElementById("step").click(), true)`)
	waitFor(tab, `document.getElementById("status")?.textContent === "1 step"`)
	time.Sleep(300 * time.Millisecond) // the address bar follows 100 ms after a change
	if got := evaluate[string](tab, `location.href`); got != before {
		t.Errorf("before the hash, the address became %s, want %s kept", got, before)
	}
	evaluate[bool](tab, `(releaseDigest(), true)`)
	waitFor(tab, `document.querySelector("#model").value === `+jsString(want))
	waitFor(tab, `location.hash !== "" && location.href === document.querySelector("#share-url").value`)
	frag := strings.TrimPrefix(evaluate[string](tab, `location.hash`), "#")
	if st, err := link.Decode(frag); err != nil || st.Spec.Model != want || st.Spec.Steps != 1 {
		t.Errorf("the address's session is %+v (%v), want 1 step on %s", st.Spec, err, want)
	}
}
