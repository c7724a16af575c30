package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/gguf"
)

// TestModelPreflight gives the page GGUF files by URL and as files: it
// shows what each file's header says before the download, downloads one
// the page opens, asks before a large one with the report beside the
// question, and refuses one with an unsupported type or too large to hold
// without downloading it, saying why.
func TestModelPreflight(t *testing.T) {
	good, err := os.ReadFile(writeGGUF(t, gguf.F32, nil))
	if err != nil {
		t.Fatal(err)
	}
	q41Path := writeGGUF(t, gguf.F32, func(f *gguf.File) { f.Tensors[2].Type, f.Tensors[3].Type = gguf.Q4_1, gguf.Q4_1 })
	q41, err := os.ReadFile(q41Path)
	if err != nil {
		t.Fatal(err)
	}
	var whole atomic.Int64 // requests for a whole file
	serve := func(data []byte, size int64) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
			if r.Header.Get("Range") == "" {
				whole.Add(1)
			}
			if size == int64(len(data)) {
				http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(data))
				return
			}
			// A file said to be larger than it is: its head, and its claimed size.
			w.Header().Set("Content-Range", "bytes 0-"+strconv.Itoa(len(data)-1)+"/"+strconv.FormatInt(size, 10))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data)
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/good.gguf", serve(good, int64(len(good))))
	mux.HandleFunc("/q41.gguf", serve(q41, int64(len(q41))))
	mux.HandleFunc("/large.gguf", serve(good, 300_000_000))
	mux.HandleFunc("/huge.gguf", serve(good, 3_000_000_000))
	models := httptest.NewServer(mux)
	defer models.Close()

	tab := openPage(t, "/")
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	for _, tc := range []struct{ path, want string }{
		{"/q41.gguf", "its header says this page cannot open it:\narchitecture: llama\ntensor types: F32 ×46, Q4_1 ×2 (not supported)\nparameters: 292,800\n"},
		{"/q41.gguf", "will not open in a page: tensor output.weight is Q4_1, which is not supported for weights"},
		{"/huge.gguf", "memory: 1.1 MiB of weights once open, with the file's 2861.0 MiB"},
		{"/huge.gguf", "will not open in a page: the file has 2861.0 MiB, more than the 1024.0 MiB a page reads"},
	} {
		setInput(tab, "#model-url", models.URL+tc.path)
		waitFor(tab, `document.querySelector("#loading")?.innerText.includes(`+jsString(tc.want)+`)`)
		setInput(tab, "#model-url", "")
	}
	if n := whole.Load(); n != 0 {
		t.Errorf("files the page will not open were downloaded whole %d times", n)
	}
	setInput(tab, "#model-url", models.URL+"/large.gguf")
	waitFor(tab, `document.querySelector("#loading")?.innerText.includes("large.gguf is 286.1 MiB: download it?") &&
		document.querySelector("#preflight")?.innerText.includes("architecture: llama\ntensor types: F32 ×48") &&
		document.querySelector("#preflight")?.innerText.endsWith("will open in a page")`)
	click(tab, "#loading-cancel")
	waitFor(tab, `document.querySelector("#loading") === null`)
	u := models.URL + "/good.gguf"
	setInput(tab, "#model-url", u)
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#model").selectedOptions[0]?.textContent === `+jsString(u))
	if n := whole.Load(); n != 1 {
		t.Errorf("good.gguf was downloaded whole %d times, want once", n)
	}
	must(tab, "choose the file", chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{q41Path}))
	waitFor(tab, `document.querySelector("#file-status")?.innerText.includes("stories260K.gguf.edited: its header says this page cannot open it:\narchitecture: llama\ntensor types: F32 ×46, Q4_1 ×2 (not supported)")`)
}
