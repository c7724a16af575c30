// Package ui is the nexttoken playground: go-app components over the engine's
// session traces. Everything shown comes from the engine; the components only
// lay it out. It builds natively too, so the server can prerender pages.
package ui

import (
	"errors"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
)

// Register routes every page of the playground, whose sessions compute
// with the default session.Options (Go's loops). Call it before serving
// Handler; the browser program calls RegisterWith.
func Register() { RegisterWith(session.Options{}) }

// MarkStart marks the program's start, its main function begun, with the
// User Timing mark nexttoken:main: make timing tells the task it falls in,
// the runtime's and the packages' start, from the page's later tasks.
func MarkStart() { mark("nexttoken:main") }

// RegisterWith is Register for a page whose sessions compute with engine:
// the browser program's, with the kernels it loaded. Call it before
// app.RunWhenOnBrowser.
func RegisterWith(engine session.Options) {
	playground := func() app.Composer { return &Playground{engine: engine} }
	app.Route("/", playground)
	// A static host serves the exported page at /index.html too.
	app.Route("/index.html", playground)
}

// Handler is the go-app handler that serves the playground's pages.
func Handler() *app.Handler {
	return &app.Handler{
		Name:        "nexttoken",
		ShortName:   "nexttoken",
		Title:       "nexttoken — watch a language model choose the next token",
		Description: "A playground that shows every step of autoregressive decoding: logits, softmax, sampling and the KV cache.",
		Icon:        app.Icon{Default: "/web/icon.png", SVG: "/web/icon.svg"},
		Image:       "/web/icon.png",
		Styles:      []string{"/web/app.css"},
		Scripts: []string{
			"/web/paint.js", // the hot views' one writer (paint_js.go)
			"/web/boot.js",  // when the program starts (BootAppJS)
		},
		LoadingLabel: "Loading the playground…",
		ThemeColor:   "#1f2937",

		ServiceWorkerTemplate: appWorker(),
	}
}

// BootAppJS is go-app's app.js, js, made to start the WebAssembly program
// through web/boot.js, which decides when: the server and the export serve
// it so.
//
// And it instantiates the module web/boot.js compiled while the page was
// parsed, when it did (nexttokenModule), or else one compiled off the
// page's thread (nexttokenCompile, given go-app's fetch, whose second
// argument it ignores), with the memory it may import
// (nexttokenInstantiate), runs the program once a worker has run its start
// (nexttokenWarmUp), and leaves to web/boot.js when to register the
// service worker.
func BootAppJS(js string) (string, error) {
	return PatchScript("app.js", js,
		"goappInitServiceWorker();", "",
		"goappInitWebAssembly();", "nexttokenBoot(goappInitWebAssembly, goappInitServiceWorker);",
		"const wasm = await instantiateStreaming(", "const module = await globalThis.nexttokenModule ?? await nexttokenCompile(",
		"go.run(wasm.instance);", `const wasm = {module, instance: await nexttokenInstantiate(module, go.importObject)};
    await nexttokenWarmUp(wasm.module);
    go.run(wasm.instance);`)
}

// appWorker is go-app's service worker with three changes. It becomes
// active once its cache is filled, not before (go-app's install does not
// wait for it): a reader offline right after a first visit finds the page.
// A new version deletes every other cache, the reader's models too
// (modelCache): caches named nexttoken-… now stay. And a page comes from
// the network, drawn for its link (prerendered), and from the cache only
// offline, whatever its query, which the page reads: go-app's worker
// serves every page from its cache, where only "/" is. (The server's only:
// the browser's build of go-app has no worker script.)
func appWorker() string {
	worker, err := PatchScript("service worker", app.DefaultAppWorkerJS,
		`self.addEventListener("install", async (event) => {
  try {
    console.log("installing app worker {{.Version}}");
    await installWorker();
    await self.skipWaiting();
  } catch (error) {
    console.error("error during installation:", error);
  }
});`,
		`self.addEventListener("install", (event) => event.waitUntil((async () => {
  try {
    console.log("installing app worker {{.Version}}");
    await installWorker();
    await self.skipWaiting();
  } catch (error) {
    console.error("error during installation:", error);
  }
})()));`,
		`if (key !== cacheName) {`,
		`if (key !== cacheName && !key.startsWith("nexttoken-")) {`,
		`const cachedResponse = await caches.match(request);`,
		`if (request.mode === "navigate") {
    try {
      return await fetch(request);
    } catch (err) {
      const page = await caches.match(request, {ignoreSearch: true});
      if (page) {
        return page;
      }
      throw err;
    }
  }
  const cachedResponse = await caches.match(request);`)
	if err != nil {
		panic(err) // TestAppWorker fails first
	}
	return worker
}

// PatchScript replaces each old string of go-app's script s, which must
// be there once, with its new one: a go-app update that changes the script
// fails here (TestAppWorker; serve and export stop on it), not silently in
// the browser.
func PatchScript(script, s string, oldNew ...string) (string, error) {
	for i := 0; i+1 < len(oldNew); i += 2 {
		if strings.Count(s, oldNew[i]) != 1 {
			return "", errors.New("go-app's " + script + " has changed: " + oldNew[i] + " is not there once")
		}
		s = strings.Replace(s, oldNew[i], oldNew[i+1], 1)
	}
	return s, nil
}
