//go:build !js

package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/gguf"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// firstPageLimit is what the first page may cost on the wire: the worked
// example and the toy model, with no other model.
const firstPageLimit = 2_000_000

// TestFirstPageBytes opens the playground as a first-time reader does and
// adds up every byte that came over the network: the page, its scripts,
// its styles and app.wasm, brotli-compressed. No model is fetched.
func TestFirstPageBytes(t *testing.T) {
	h := needBrowser(t)
	_, all, total := firstPageBytes(t, h.browser, h.url+"/")
	if wasm := slices.IndexFunc(all, func(r pageFile) bool { return r.Name == "/web/app.wasm" }); wasm < 0 || all[wasm].Bytes < 1e6 {
		t.Errorf("app.wasm did not come over the network: %+v", all)
	}
	if total > firstPageLimit {
		t.Errorf("the first page cost %.0f bytes, more than %d", total, firstPageLimit)
	}
}

// pageFiles lists the files a page fetched (pageFile), the program that
// its warm-up worker fetched too (web/boot.js's mark).
const pageFiles = `[...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].
	map(e => ({name: new URL(e.name).pathname, bytes: e.transferSize, encoding: e.contentEncoding ?? ""})).
	concat(performance.getEntriesByName("nexttoken:program-received").map(m => ({name: new URL(m.detail.url).pathname, bytes: m.detail.bytes, encoding: m.detail.encoding ?? ""})))`

// pageFile is a file a page fetched, with the bytes that came over the
// network for it and their Content-Encoding.
type pageFile struct {
	Name     string  `json:"name"`
	Bytes    float64 `json:"bytes"`
	Encoding string  `json:"encoding"`
}

// firstPageBytes opens url in a tab of its own without the browser's cache,
// which the other tests filled, nor go-app's service worker, which would
// answer from its own cache: every byte comes over the network. It waits
// until the app is live, and returns the tab, what the page fetched
// (logged) and their bytes in all. Fetching a model fails the test.
func firstPageBytes(t *testing.T, browser context.Context, url string) (context.Context, []pageFile, float64) {
	t.Helper()
	// A browser context of its own has an empty HTTP cache for the page's
	// workers too, which the page's Network.setCacheDisabled does not reach.
	tab := openTab(t, browser, chromedp.WithNewBrowserContext())
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tab, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadPage(tab, url); err != nil {
		t.Fatal(err)
	}
	all := evaluate[[]pageFile](tab, pageFiles)
	var total float64
	for _, r := range all {
		total += r.Bytes
		if strings.Contains(r.Name, "/web/models/") {
			t.Errorf("the first page fetched %s", r.Name)
		}
		t.Logf("%-28s %9.0f bytes %s", r.Name, r.Bytes, r.Encoding)
	}
	t.Logf("the first page: %.0f bytes on the wire", total)
	return tab, all, total
}

// TestModelFetch opens stories260K, which app.wasm does not hold: the page
// fetches its files from web/models, keeps them in Cache Storage, and a
// second visit reads them from there, with no download.
func TestModelFetch(t *testing.T) {
	tab := openPage(t, "/")
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	const link = "/?model=stories260K&prompt=Once+upon+a+time&steps=3"
	for visit, wantDownload := range []bool{true, false} {
		tab := openPage(t, link) // ready only once the model is in
		waitFor(tab, `document.querySelector("#model").value === "stories260K" && document.querySelectorAll("#tokens .tok.gen").length === 3`)
		fetched := evaluate[bool](tab, `performance.getEntriesByType("resource").some(e => e.name.endsWith("/web/models/stories260K.bin"))`)
		if fetched != wantDownload {
			t.Errorf("visit %d: downloaded stories260K.bin: %v, want %v", visit+1, fetched, wantDownload)
		}
	}
	cached := evaluate[[]string](tab, `caches.open("nexttoken-models").then(c => c.keys()).then(ks => ks.map(r => new URL(r.url).pathname))`)
	if strings.Join(cached, " ") != "/web/models/stories260K.bin /web/models/tok512.bin" {
		t.Errorf("Cache Storage holds %v", cached)
	}
	// The list of stored models, and Delete.
	click(tab, "#stored-models summary")
	waitFor(tab, `document.querySelector("#stored-list")?.textContent.includes("TinyStories 260K, its weights, 1.0 MiB") &&
		document.querySelector("#stored-models").textContent.includes("1.0 MiB in all")`)
	click(tab, `#stored-list li[data-url$="stories260K.bin"] button`)
	waitFor(tab, `document.querySelectorAll("#stored-list li").length === 1`)
	if got := evaluate[int](tab, `caches.open("nexttoken-models").then(c => c.keys()).then(ks => ks.length)`); got != 1 {
		t.Errorf("after Delete, Cache Storage holds %d files", got)
	}
}

// TestModelFetchProgress opens a link to stories260K on a slow network:
// the page shows the download's progress, and the address keeps the link
// meanwhile; Cancel stops it, leaving the toy model's session. Chosen in
// the model picker on a fast network, the model comes in.
func TestModelFetchProgress(t *testing.T) {
	tab := openPage(t, "/")
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	// 100 kB/s: stories260K's 1 MB takes ten seconds.
	throttle := func(bytesPerSecond float64) {
		rule := network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: []*network.Conditions{{
			URLPattern: needBrowser(t).url + "/web/models/*", Latency: 20, DownloadThroughput: bytesPerSecond, UploadThroughput: -1}}}
		if _, err := chromedp.Call(tab, network.EmulateNetworkConditionsByRule, rule); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chromedp.Call(tab, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// TestModelFetch left stories260K.bin in the browser's HTTP cache,
	// which the throttle does not slow: the download would be over before
	// Cancel.
	if _, err := chromedp.Call(tab, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatal(err)
	}
	throttle(100_000)
	const link = "/?model=stories260K&prompt=Once+upon+a+time"
	must(tab, "navigate", chromedp.Navigate(needBrowser(t).url+link))
	waitFor(tab, `document.querySelector("#loading progress")?.value > 0`)
	// textContent, not chromedp's text: the banner redraws ten times a
	// second, which chromedp's node lookup does not survive.
	if got := evaluate[string](tab, `document.querySelector("#loading").textContent`); !strings.Contains(got, "Loading TinyStories 260K:") || !strings.Contains(got, "of 1.0 MiB") || !strings.Contains(got, "s left") {
		t.Errorf("the progress says %q", got)
	}
	if got := evaluate[string](tab, `document.querySelector("#playground").dataset.ready + " " + location.search`); got != "false ?model=stories260K&prompt=Once+upon+a+time" {
		t.Errorf("while loading, the page's ready and address are %q", got)
	}
	// A click by script, for the same reason.
	evaluate[bool](tab, `(document.querySelector("#loading-cancel").click(), true)`)
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#notice")?.textContent.includes("Stopped loading TinyStories 260K")`)
	if got := evaluate[string](tab, `document.querySelector("#model").value`); got != "toy" {
		t.Errorf("after Cancel the model picker says %q, want toy", got)
	}
	waitFor(tab, `!location.search.includes("stories260K")`) // the address follows the toy session again
	throttle(-1)
	setInput(tab, "#model", "stories260K")
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#tokens")?.textContent.startsWith("∅␣Once␣upon␣a␣time")`)
}

// TestModelFiles opens models from the reader's own files: a llama2.c
// checkpoint with its tokenizer chosen in the file field, a GGUF file
// dropped on the page. A link to such a session names the files and asks
// for them, refusing others, and reopens the session exactly.
func TestModelFiles(t *testing.T) {
	ckpt, tok := absolute(t, stories260KFile), absolute(t, tok512File)
	choose := func(tab context.Context, field string, files ...string) {
		must(tab, "choose files", chromedp.SetUploadFiles(chromedp.CSS(field), files))
	}
	tab := openPage(t, "/")
	choose(tab, "#model-file", tok)
	waitFor(tab, `document.querySelector("#file-status")?.textContent.includes("tok512.bin is a tokenizer: choose its checkpoint with it")`)
	choose(tab, "#model-file", ckpt, tok)
	waitFor(tab, `document.querySelector("#model").selectedOptions[0]?.textContent === "stories260K.bin + tok512.bin (your files)" &&
		document.querySelector("#tokens")?.textContent.startsWith("∅␣The␣cat")`)
	click(tab, "#step")
	click(tab, "#step")
	waitFor(tab, `document.querySelectorAll("#tokens .tok.gen").length === 2`)
	want := evaluate[string](tab, `document.querySelector("#tokens").textContent`)
	drawn(tab)
	shared := evaluate[string](tab, `document.querySelector('#share-url').value`)

	// The link in a fresh tab: the page asks for the files.
	again := openTab(t, needBrowser(t).browser)
	must(again, "open the link", chromedp.Navigate(shared))
	waitFor(again, `document.querySelector("#wanted-files")?.textContent.includes("stories260K.bin + tok512.bin (1062767 bytes, SHA-256 ")`)
	// Other files are refused, by name and hash.
	evaluate[bool](again, `fetch("/web/models/toy.bin").then(r => r.blob()).then(b => {
		const dt = new DataTransfer();
		dt.items.add(new File([b], "toy.bin"));
		fetch("/web/models/toy-tokenizer.bin").then(r => r.blob()).then(t => {
			dt.items.add(new File([t], "toy-tokenizer.bin"));
			document.body.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
		});
		return true;
	})`)
	waitFor(again, `document.querySelector("#file-status")?.textContent.includes("these files are toy.bin + toy-tokenizer.bin") &&
		document.querySelector("#file-status").textContent.includes("but the session needs stories260K.bin + tok512.bin")`)
	choose(again, "#wanted-file", tok, ckpt)
	waitFor(again, `document.querySelector("#wanted-files") === null && document.querySelector("#tokens")?.textContent === `+jsString(want))

	// The same model as llama.cpp's converter writes it, as a GGUF file:
	// a new session on it, with the same prompt, steps to the same tokens.
	choose(tab, "#model-file", writeGGUF(t, gguf.F32, nil))
	waitFor(tab, `document.querySelector("#model").selectedOptions[0]?.textContent === "stories260K.gguf (your files)"`)
	click(tab, "#step")
	click(tab, "#step")
	waitFor(tab, `document.querySelector("#tokens")?.textContent === `+jsString(want))
}

func absolute(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestModelURL opens GGUF files from another server: a 404, a page that is
// not GGUF (refused from its first bytes), a server that does not allow
// the page to read it, and a model that opens (named by its URL until the
// browser's digest, held back a while, names it by its hash), whose share
// link reopens it from the browser's cache; a link whose hash the file no
// longer has says so.
func TestModelURL(t *testing.T) {
	data, err := os.ReadFile(writeGGUF(t, gguf.F32, nil))
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int64 // bytes of the model sent whole
	cors := func(w http.ResponseWriter) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Expose-Headers", "Content-Length, Content-Range")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/models/m.gguf", func(w http.ResponseWriter, r *http.Request) {
		cors(w)
		if r.Header.Get("Range") == "" {
			served.Add(int64(len(data)))
		}
		http.ServeContent(w, r, "m.gguf", time.Time{}, bytes.NewReader(data))
	})
	mux.HandleFunc("/models/closed.gguf", func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "closed.gguf", time.Time{}, bytes.NewReader(data))
	})
	mux.HandleFunc("/models/page.gguf", func(w http.ResponseWriter, r *http.Request) {
		cors(w)
		http.ServeContent(w, r, "page.html", time.Time{}, strings.NewReader("<!doctype html><title>Not found</title>"+strings.Repeat(" ", 5000)))
	})
	// Files that say they are larger than they are, in the head a range
	// request gets: the page refuses one too large to hold, and asks
	// before downloading a large one.
	claim := func(size int64) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			cors(w)
			head := data[:min(len(data), 4<<20)]
			w.Header().Set("Content-Range", "bytes 0-"+strconv.Itoa(len(head)-1)+"/"+strconv.FormatInt(size, 10))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(head)
		}
	}
	// A file whose header goes on past the first 4 MiB (a long string in
	// its metadata, as a large vocabulary's tokens and merges are), of an
	// architecture the engine does not run: refused from more of its head,
	// never downloaded whole.
	long, err := os.ReadFile(writeGGUF(t, gguf.F32, func(f *gguf.File) {
		pad, err := gguf.NewValue(strings.Repeat("x", 6<<20))
		if err != nil {
			t.Fatal(err)
		}
		arch, _ := gguf.NewValue("mamba")
		f.Metadata = append(gguf.Metadata{{Key: "general.architecture", Value: arch}, {Key: "x.padding", Value: pad}},
			slices.DeleteFunc(f.Metadata, func(kv gguf.KV) bool { return kv.Key == "general.architecture" })...)
	}))
	if err != nil {
		t.Fatal(err)
	}
	var longWhole atomic.Int64
	mux.HandleFunc("/models/long.gguf", func(w http.ResponseWriter, r *http.Request) {
		cors(w)
		if r.Header.Get("Range") == "" {
			longWhole.Add(1)
		}
		http.ServeContent(w, r, "long.gguf", time.Time{}, bytes.NewReader(long))
	})
	mux.HandleFunc("/models/huge.gguf", claim(3_000_000_000))
	mux.HandleFunc("/models/large.gguf", claim(300_000_000))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { cors(w); http.NotFound(w, r) })
	models := httptest.NewServer(mux)
	defer models.Close()

	tab := openPage(t, "/")
	expectConsole(tab, `^Failed to load resource: (the server responded with a status of 404|net::ERR_FAILED)`)
	expectConsole(tab, `has been blocked by CORS policy`)
	evaluate[bool](tab, `caches.delete("nexttoken-models").then(() => true)`)
	evaluate[bool](tab, holdDigest) // before the first URL starts the engine's worker
	for _, tc := range []struct{ path, want string }{
		{"/models/missing.gguf", "the server answered 404"},
		{"/models/page.gguf", `is not a GGUF file (it starts with "<!do")`},
		{"/models/closed.gguf", "could not be fetched (offline, or the server does not allow this page to read it)"},
		{"/models/huge.gguf", "the file has 2861.0 MiB, more than the 1024.0 MiB a page reads"},
		{"/models/long.gguf", `architecture "mamba" is not supported`},
	} {
		setInput(tab, "#model-url", models.URL+tc.path)
		waitFor(tab, `document.querySelector("#loading")?.textContent.includes(`+jsString(tc.want)+`)`)
		if got := evaluate[string](tab, `document.querySelector("#model").value`); got != "toy" {
			t.Errorf("%s: the page left the toy model for %q", tc.path, got)
		}
	}
	if n := longWhole.Load(); n != 0 {
		t.Errorf("long.gguf was downloaded whole %d times before it was refused", n)
	}
	setInput(tab, "#model-url", models.URL+"/models/large.gguf")
	waitFor(tab, `document.querySelector("#loading")?.textContent.includes("large.gguf is 286.1 MiB: download it?")`)
	evaluate[bool](tab, `(document.querySelector("#loading-cancel").click(), true)`)
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#notice")?.textContent.includes("Stopped loading")`)
	u := models.URL + "/models/m.gguf"
	setInput(tab, "#model-url", u)
	waitFor(tab, `document.querySelector("#loading") === null && document.querySelector("#model").selectedOptions[0]?.textContent === `+jsString(u)+
		` && document.querySelector("#tokens")?.textContent.startsWith("∅␣The␣cat")`)
	if got := evaluate[string](tab, `document.querySelector("#model").value`); !strings.HasPrefix(got, "url::") {
		t.Errorf("with the digest held back, the page names the model %q, want a pending url::", got)
	}
	evaluate[bool](tab, `(releaseDigest(), true)`)
	// The browser's digest names it, of the copy made for the cache, as
	// Go's RefOf does: the session opened on it named by its URL alone.
	ref := modelfile.RefOf(modelfile.File{Data: data})
	ref.Name, ref.URL = u, true
	waitFor(tab, `document.querySelector("#model").value === `+jsString(ref.String()))
	hashedBy := `performance.getEntriesByType("mark").map(m => m.name).filter(n => n === "nexttoken:hashed" || n === "nexttoken:no-digest")`
	if got := evaluate[[]string](tab, hashedBy); !slices.Equal(got, []string{"nexttoken:hashed"}) {
		t.Errorf("downloaded, the page's marks are %q, want the browser's digest's", got)
	}
	click(tab, "#step")
	waitFor(tab, `document.querySelectorAll("#tokens .tok.gen").length === 1`)
	want := evaluate[string](tab, `document.querySelector("#tokens").textContent`)
	drawn(tab)
	shared := evaluate[string](tab, `document.querySelector('#share-url').value`)
	before := served.Load()
	again := openPage(t, strings.TrimPrefix(shared, needBrowser(t).url))
	waitFor(again, `document.querySelector("#tokens")?.textContent === `+jsString(want))
	if served.Load() != before {
		t.Errorf("the shared link downloaded the model again (%d bytes), not from the cache", served.Load()-before)
	}
	if got := evaluate[[]string](again, hashedBy); !slices.Equal(got, []string{"nexttoken:hashed"}) {
		t.Errorf("from the cache, the page's marks are %q, want the browser's digest's", got)
	}
	// A link made when the file had another hash.
	stale := "/?model=" + url.QueryEscape("url:0000000000000000:"+strconv.Itoa(len(data))+":"+u) + "&prompt=The+cat"
	changed := openPage(t, stale)
	waitFor(changed, `document.querySelector("#loading")?.textContent.includes("has changed since the link was made")`)
}

// TestModelOffline reloads a stories260K page once its server is gone:
// go-app's service worker serves the page and app.wasm, and the model
// comes from Cache Storage.
func TestModelOffline(t *testing.T) {
	h := needBrowser(t)
	handler, err := newServer("../../web")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler) // a server of its own, to stop
	defer srv.Close()
	const link = "/?model=stories260K&prompt=Once+upon+a+time&steps=2"
	tab := openTab(t, h.browser)
	if _, err := loadPage(tab, srv.URL+link); err != nil {
		t.Fatal(err)
	}
	waitFor(tab, `document.querySelector("#tokens .tok.gen") !== null`)
	evaluate[bool](tab, `navigator.serviceWorker.ready.then(() => true)`)
	want := evaluate[string](tab, `document.querySelector("#tokens").textContent`)
	srv.CloseClientConnections()
	srv.Close()
	// The probe below fails through the service worker (ERR_FAILED) or, if
	// the worker has not yet claimed the page, by itself.
	expectConsole(tab, `^Failed to load resource: net::ERR_(FAILED|CONNECTION_REFUSED)`)
	if got := evaluate[string](tab, `fetch("/web/models/toy.bin?" + Date.now()).then(() => "fetched", () => "offline")`); got != "offline" {
		t.Fatalf("the server is still there: %s", got)
	}
	if _, err := loadPage(tab, srv.URL+link); err != nil {
		t.Fatalf("reload without the server: %v", err)
	}
	waitFor(tab, `document.querySelector("#tokens")?.textContent === `+jsString(want))
}

// TestArchitecturesInThePage opens a random GGUF model of each
// architecture beside llama2.c's (randmodel.Extend) as a reader's file:
// the page steps it to the tokens the native engine takes on the same file
// and prompt, and its KV cache card says what the architecture adds.
func TestArchitecturesInThePage(t *testing.T) {
	tab := openPage(t, "/")
	for _, arch := range randmodel.Extensions {
		c := checkpoint.Config{Dim: 64, HiddenDim: 128, Layers: 2, Heads: 2, KVHeads: 1, VocabSize: 400, SeqLen: 64, SharedHead: true}
		if arch == "qwen3" || arch == "gemma3" {
			c.HeadDim = 64 // wider than dim/heads, as theirs are
		}
		m, v, err := randmodel.Build(c, 5)
		if err != nil {
			t.Fatal(err)
		}
		if err := randmodel.Extend(m, arch, 5); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), arch+".gguf")
		var buf bytes.Buffer
		if err := gguf.WriteLlama2c(&buf, m, v, gguf.Llama2cOptions{Type: gguf.F32, TiedOutput: true}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		// The native engine on the same file and the page's prompt.
		model, ref, err := modelfile.Open(modelfile.File{Name: arch + ".gguf", Data: buf.Bytes()})
		if err != nil {
			t.Fatal(err)
		}
		prompt := evaluate[string](tab, `document.querySelector("#prompt").value`)
		s, err := session.New(session.Spec{Model: ref.String(), Prompt: prompt, Sampler: sampler.DefaultSettings(), Steps: 3},
			func(string) (*session.Model, error) { return model, nil })
		if err != nil {
			t.Fatal(err)
		}
		must(tab, "choose "+arch, chromedp.SetUploadFiles(chromedp.CSS("#model-file"), []string{path}))
		waitFor(tab, `document.querySelector("#model").selectedOptions[0]?.textContent === `+jsString(arch+".gguf (your files)"))
		for range 3 {
			click(tab, "#step")
		}
		waitFor(tab, `document.querySelectorAll("#tokens .tok.gen").length === 3`)
		drawn(tab)
		// A byte token may leave the text invalid UTF-8, which the page
		// shows as U+FFFD a byte, as converting to runes does.
		if got, want := evaluate[string](tab, `document.querySelector("#text").textContent`), string([]rune(s.Trace().Text)); got != want {
			t.Errorf("%s: the page's text is %q, the native engine's %q", arch, got, want)
		}
		drawn(tab)
		if says, want := evaluate[string](tab, `document.querySelector("#kv-extras")?.textContent ?? ""`),
			"What this model's architecture does beyond llama2.c's: "+strings.Join(m.Extras(), "; ")+"."; says != want {
			t.Errorf("%s: the KV card says %q, want %q", arch, says, want)
		}
		// The logits say when they are soft-capped; the attention of a
		// windowed layer (layer 0, shown first) which positions it no
		// longer reads.
		capped := evaluate[string](tab, `document.querySelector("#logits-softcap")?.textContent ?? ""`)
		if want := m.Config.FinalSoftcap > 0; want != strings.Contains(capped, "These logits are soft-capped") {
			t.Errorf("%s: the logits card says %q about soft-capping", arch, capped)
		}
		title := evaluate[string](tab, `document.querySelector("#attention-title")?.textContent ?? ""`)
		if want := m.Config.Windowed(0); want != strings.Contains(title, "a sliding window of 4 positions: those before") {
			t.Errorf("%s: the attention's title is %q", arch, title)
		}
	}
}
