//go:build !js

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
)

// TestFileHash opens models from files in the page and checks that the
// page names each by the Ref Go's modelfile.RefOf gives the same files, the
// model's file first: a GGUF file, and a llama2.c checkpoint with its
// tokenizer.bin chosen in either order (the SHA-256 of the two files one
// after the other). The browser's own digest (crypto.subtle) makes the
// sum, and where the page has none (no secure context) Go's does, to the
// same Ref; the page's User Timing marks say which did.
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
		for _, digest := range []bool{true, false} {
			name := tc.name + ", the browser's digest"
			if !digest {
				name = tc.name + ", no crypto.subtle"
			}
			t.Run(name, func(t *testing.T) {
				tab := openPage(t, "/")
				if !digest {
					evaluate[bool](tab, `(Object.defineProperty(crypto, "subtle", {value: undefined}), crypto.subtle === undefined)`)
				} else if !evaluate[bool](tab, `isSecureContext && crypto.subtle !== undefined`) {
					t.Fatal("the test page has no crypto.subtle: it is not a secure context")
				}
				must(tab, "choose the files", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), tc.chosen))
				waitFor(tab, `document.querySelector("#model").value.startsWith("file:") || document.querySelector("#file-status.field-error") !== null`)
				if got := evaluate[string](tab, `document.querySelector("#model").value`); got != want {
					t.Errorf("the page names the model %q, Go's RefOf %q (%s)", got, want, evaluate[string](tab, `document.querySelector("#file-status")?.textContent ?? ""`))
				}
				marks := evaluate[[]string](tab, `performance.getEntriesByType("mark").map(m => m.name).filter(n => n === "nexttoken:hashed" || n === "nexttoken:no-digest")`)
				wantMark := "nexttoken:hashed"
				if !digest {
					wantMark = "nexttoken:no-digest"
				}
				if len(marks) != 1 || marks[0] != wantMark {
					t.Errorf("the page's marks are %q, want %s", marks, wantMark)
				}
			})
		}
	}
}
