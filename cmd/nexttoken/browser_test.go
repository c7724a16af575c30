//go:build !js

package main

// Browser tests: the real server (newServer over ../../web, so they need a
// built app.wasm) on httptest, and one headless Chromium for the whole test
// binary, driven by chromedp, with a fresh tab per test.
//
// make test builds app.wasm, installs Chromium if it is missing and sets
// NEXTTOKEN_BROWSER=1: then a missing app.wasm or Chromium fails the tests.
// A plain go test without them skips the browser tests and says why.
//
// A test opens the playground with openPage and works on the context it
// returns with text, click, setInput, evaluate and waitFor, which fail the
// test themselves. When a test fails, its screenshot, HTML and console go to
// $NEXTTOKEN_ARTIFACTS (default: $TMPDIR/nexttoken-artifacts).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"nexttoken/engine/catalog"
)

const (
	loadTimeout   = 30 * time.Second // navigation until the wasm app is live
	actionTimeout = 10 * time.Second // one query, click, script or wait
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.close()
	}
	os.Exit(code)
}

// harness is what the browser tests share.
type harness struct {
	url      string          // the test server
	chromium string          // the browser's path
	browser  context.Context // the shared browser: each test opens a tab in it
	remote   *remoteHosts    // what the hosts of catalog.Downloads answer
	close    func()
}

// remoteHosts stands in for the hosts on the web that the models known to
// work come from (catalog.Downloads): the shared browser resolves their
// names to this test server and accepts its certificate, so that the page
// fetches https://huggingface.co/… from the handler a test sets with
// serve. No handler: 404.
type remoteHosts struct {
	mu      sync.Mutex
	handler http.Handler
}

func (r *remoteHosts) serve(h http.Handler) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handler = h
}

func (r *remoteHosts) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	h := r.handler
	r.mu.Unlock()
	if h == nil {
		http.NotFound(w, req)
		return
	}
	h.ServeHTTP(w, req)
}

// resolverRules maps the hosts of catalog.Downloads to addr, as
// Chromium's --host-resolver-rules takes them.
func resolverRules(addr string) string {
	var rules []string
	for _, d := range catalog.Downloads {
		if u, err := url.Parse(d.URL); err == nil && !slices.Contains(rules, "MAP "+u.Hostname()+" "+addr) {
			rules = append(rules, "MAP "+u.Hostname()+" "+addr)
		}
	}
	return strings.Join(rules, ", ")
}

// The harness is made on first use, so that the package's other tests do
// not start a browser.
var (
	shared     *harness
	sharedErr  error
	sharedOnce sync.Once
)

// missing is what a developer may not have: app.wasm or Chromium.
type missing string

func (m missing) Error() string { return string(m) }

// needBrowser returns the harness, or skips the test (fails it under make
// test) when app.wasm or Chromium is missing.
func needBrowser(t *testing.T) *harness {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = startHarness() })
	if _, ok := sharedErr.(missing); ok && os.Getenv("NEXTTOKEN_BROWSER") == "" {
		t.Skipf("skipping the browser test: %v (make test runs it)", sharedErr)
	}
	if sharedErr != nil {
		t.Fatalf("browser tests: %v", sharedErr)
	}
	return shared
}

func startHarness() (*harness, error) {
	const web = "../../web"
	for _, program := range []string{"app.wasm", "shared/app.wasm"} {
		if _, err := os.Stat(filepath.Join(web, program)); errors.Is(err, fs.ErrNotExist) {
			return nil, missing(`web/` + program + ` is missing: build it with "make web/` + program + `"`)
		}
	}
	name := os.Getenv("NEXTTOKEN_CHROMIUM")
	if name == "" {
		name = "chromium"
	}
	chromium, err := exec.LookPath(name)
	if err != nil {
		return nil, missing(fmt.Sprintf(`%s is not on the PATH: install it with "apt-get install chromium"`, name))
	}
	handler, err := newServer(web)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(handler)
	remote := &remoteHosts{}
	remoteSrv := httptest.NewTLSServer(remote)
	browser, stop, err := newBrowser(chromium,
		chromedp.Flag("host-resolver-rules", resolverRules(remoteSrv.Listener.Addr().String())), chromedp.IgnoreCertErrors)
	if err != nil {
		srv.Close()
		remoteSrv.Close()
		return nil, err
	}
	return &harness{url: srv.URL, chromium: chromium, browser: browser, remote: remote, close: func() {
		stop()
		srv.Close()
		remoteSrv.Close()
	}}, nil
}

// newBrowser starts a headless Chromium with no traffic of its own and a
// fresh profile, with the extra options given. The profile and whatever
// else Chromium leaves in its TMPDIR go in a folder that stop removes.
func newBrowser(chromium string, extra ...chromedp.ExecAllocatorOption) (browser context.Context, stop func(), err error) {
	dir, err := os.MkdirTemp("", "nexttoken-chromium-")
	if err != nil {
		return nil, nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.Env("TMPDIR="+dir),
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
	)
	opts = append(opts, extra...)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox) // Chromium's sandbox refuses root
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancel := chromedp.NewContext(allocCtx)
	stop = func() {
		cancel()
		cancelAlloc() // waits for the browser to exit
		os.RemoveAll(dir)
	}
	if err := chromedp.Do(browser); err != nil {
		stop()
		return nil, nil, fmt.Errorf("starting %s: %w", chromium, err)
	}
	return browser, stop, nil
}

// openPage opens path of the playground in a new tab and waits until the
// wasm app is live. The returned context is the tab's, for the helpers.
func openPage(t *testing.T, path string) context.Context {
	t.Helper()
	return openPageAs(t, path, screen{})
}

// screen is the device a page is opened on; the zero value is the browser's
// default window in light mode.
type screen struct {
	width, height int64
	dark          bool
}

// openPageAs is openPage on a given screen.
func openPageAs(t *testing.T, path string, s screen) context.Context {
	t.Helper()
	tab, _ := openBuildPage(t, build{url: needBrowser(t).url}, path, s)
	return tab
}

// openBuildPage is openPageAs on build b of the playground (the timing
// tests measure two); closeTab closes the tab before the test ends.
func openBuildPage(t *testing.T, b build, path string, s screen) (tab context.Context, closeTab func()) {
	t.Helper()
	h := needBrowser(t)
	tab, closeTab = openClosableTab(t, h.browser)
	scheme := "light"
	if s.dark {
		scheme = "dark"
	}
	_, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
	if err == nil && s.width > 0 {
		err = chromedp.Do(tab, chromedp.EmulateViewport(s.width, s.height))
	}
	if err != nil {
		t.Fatalf("emulating %+v: %v", s, err)
	}
	load, err := loadPage(tab, b.url+path)
	if err != nil {
		t.Fatalf("%s%s did not go live: %v", b.prefix(), path, err)
	}
	t.Logf("%s%s live %.0f ms after navigation (app.wasm in at %.0f ms)", b.prefix(), path, load.Ready, load.Wasm)
	return tab, closeTab
}

// testKey holds a tab's test in its context, so the helpers can fail it.
type testKey struct{}

// openTab opens a tab for t in browser. When t ends, the tab's console
// errors fail it, a failed test leaves its artifacts, and the tab closes.
func openTab(t *testing.T, browser context.Context, opts ...chromedp.ContextOption) context.Context {
	t.Helper()
	tab, _ := openClosableTab(t, browser, opts...)
	return tab
}

// openClosableTab is openTab with a function that does at once what the
// test's end would: check the console, leave artifacts and close the tab.
func openClosableTab(t *testing.T, browser context.Context, opts ...chromedp.ContextOption) (context.Context, func()) {
	t.Helper()
	tab, cancel := chromedp.NewContext(browser, opts...)
	console := watchConsole(tab)
	var once sync.Once
	closeTab := func() {
		once.Do(func() {
			for _, m := range console.problems() {
				t.Errorf("browser console: %s", m)
			}
			if t.Failed() {
				saveArtifacts(t, tab, console)
			}
			cancel()
		})
	}
	t.Cleanup(closeTab)
	return context.WithValue(context.WithValue(tab, testKey{}, t), consoleKey{}, console), closeTab
}

// consoleKey holds a tab's console log in its context.
type consoleKey struct{}

// expectConsole lets the tab's console show errors matching pattern
// without failing the test: the errors a test provokes on purpose, such as
// the browser's own line for a 404.
func expectConsole(tab context.Context, pattern string) {
	c := tab.Value(consoleKey{}).(*consoleLog)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expected = append(c.expected, regexp.MustCompile(pattern))
}

// pageLoad is when a page load reached each stage, in ms after the
// navigation started (the page's performance.now()).
type pageLoad struct {
	HTML      float64 `json:"html"`      // the HTML received
	Wasm      float64 `json:"wasm"`      // app.wasm received
	WasmBytes int     `json:"wasmBytes"` // app.wasm's bytes on the wire; 0 from a cache
	Ready     float64 `json:"ready"`     // the app live, all of the page drawn
	Top       float64 `json:"top"`       // the first frame that showed the live page's top: the reader can step
	Shown     float64 `json:"shown"`     // the first frame that showed the session, prerendered or live
	Numbers   float64 `json:"numbers"`   // the first frame that showed a p column's numbers
	Gaps      int     `json:"gaps"`      // frames after that which showed none (a flash)
	CLS       float64 `json:"cls"`       // the layout shifts' sum, as Chromium scores them
}

// readyObserver runs in the page before its scripts and records when the
// wasm app is live: go-app has removed its loader (the wasm program started)
// and the playground is ready, and has taken the place of the page the
// server prerendered, which is there before the wasm runs (web/boot.js
// removes that once the live page has painted).
// It also records, frame by frame, when the page first showed its session
// (prerendered or live) and real numbers (a p column's), how many frames
// after that showed none until the live page took over, and the layout
// shifts (nexttokenShifts: each one's score, time and the elements it
// moved, for a test that fails on them to say which).
const readyObserver = `(() => {
	window.nexttokenGaps = 0;
	window.nexttokenCLS = 0;
	window.nexttokenShifts = [];
	new PerformanceObserver(list => {
		for (const e of list.getEntries()) {
			if (e.hadRecentInput) continue;
			window.nexttokenCLS += e.value;
			window.nexttokenShifts.push(e.value.toFixed(3) + " at " + Math.round(e.startTime) + " ms: " + (e.sources ?? []).map(s =>
				(s.node?.nodeName ?? "?") + (s.node?.id ? "#" + s.node.id : "") + (s.node?.title ? " (" + s.node.title + ")" : "") +
				" x " + Math.round(s.previousRect.x) + "→" + Math.round(s.currentRect.x) + " y " + Math.round(s.previousRect.y) + "→" + Math.round(s.currentRect.y) +
				" w " + Math.round(s.previousRect.width) + "→" + Math.round(s.currentRect.width) + " h " + Math.round(s.previousRect.height) + "→" + Math.round(s.currentRect.height) +
				" (scrolled to " + Math.round(scrollY) + ")").join(", "));
		}
	}).observe({type: "layout-shift", buffered: true});
	const numbers = () => [...document.querySelectorAll("td.p")].some(td => td.checkVisibility() && /\d/.test(td.textContent));
	const session = () => [...document.querySelectorAll('#prerendered, #playground[data-ready="true"]')].some(e => e.checkVisibility());
	const frame = () => {
		if (session()) window.nexttokenShown ??= performance.now();
		if (document.querySelector("#playground[data-top], #playground[data-painted]")?.checkVisibility()) window.nexttokenTop ??= performance.now();
		if (numbers()) window.nexttokenNumbers ??= performance.now();
		else if (window.nexttokenNumbers !== undefined) window.nexttokenGaps++;
		if (!window.nexttokenReady && performance.now() < 20000) requestAnimationFrame(frame);
	};
	requestAnimationFrame(frame);
	new MutationObserver((_, observer) => {
		if (!document.getElementById("app-wasm-loader") && document.querySelector('#playground[data-ready="true"]') && !document.getElementById("prerendered")) {
			window.nexttokenReady = performance.now();
			observer.disconnect();
		}
	}).observe(document, {childList: true, subtree: true, attributes: true});
})();`

// loadFigures is a pageLoad once the app is live, and null before.
const loadFigures = `window.nexttokenReady && (() => {
	const nav = performance.getEntriesByType("navigation")[0];
	// The page's download of app.wasm, or its warm-up worker's (web/boot.js's mark).
	const wasm = performance.getEntriesByType("resource").find(e => /^\/web\/(shared\/)?app\.wasm$/.test(new URL(e.name).pathname));
	const worker = performance.getEntriesByName("nexttoken:program-received")[0];
	return {html: nav.responseEnd, wasm: wasm ? wasm.responseEnd : worker ? worker.startTime : 0, wasmBytes: wasm ? wasm.transferSize : worker ? worker.detail.bytes : 0, ready: window.nexttokenReady,
		shown: window.nexttokenShown ?? -1, top: window.nexttokenTop ?? -1, numbers: window.nexttokenNumbers ?? -1, gaps: window.nexttokenGaps, cls: window.nexttokenCLS};
})()`

// loadPage navigates tab to url and waits until the app is live.
func loadPage(tab context.Context, url string) (pageLoad, error) {
	ctx, cancel := context.WithTimeout(tab, loadTimeout)
	defer cancel()
	script, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: readyObserver})
	if err != nil {
		return pageLoad{}, err
	}
	defer chromedp.Call(tab, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams(script))
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return pageLoad{}, err
	}
	var load pageLoad
	for {
		load, err = chromedp.Run(ctx, chromedp.Poll[pageLoad](loadFigures, chromedp.WithPollingInterval(10*time.Millisecond), chromedp.WithPollingTimeout(0)))
		// A document that replaced itself while the poll ran (go-app's
		// service worker reloads a page when it installs a new version)
		// takes the poll's execution context with it; the ready observer
		// is in the new document too, so poll that.
		if err == nil || ctx.Err() != nil || !strings.Contains(err.Error(), "Cannot find context with specified id") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil {
		// go-app shows why the wasm did not start in its loader.
		ctx, cancel := context.WithTimeout(tab, actionTimeout)
		defer cancel()
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
			loader: document.getElementById("app-wasm-loader-label")?.innerText ?? "(removed: the wasm started)",
			ready: document.getElementById("playground")?.dataset.ready ?? "(no #playground)"})`))
		return pageLoad{}, fmt.Errorf("%w after %v; page state %s", err, loadTimeout, state)
	}
	return load, nil
}

// testOf is the test of a tab's context.
func testOf(ctx context.Context) *testing.T {
	return ctx.Value(testKey{}).(*testing.T)
}

// must runs a browser action for the tab's test within actionTimeout, and
// fails the test if it fails.
func must[T any](ctx context.Context, what string, action chromedp.Action[T]) T {
	testOf(ctx).Helper()
	return mustWithin(ctx, what, actionTimeout, action)
}

// mustWithin is must with d for the action's time.
func mustWithin[T any](ctx context.Context, what string, d time.Duration, action chromedp.Action[T]) T {
	t := testOf(ctx)
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

// text is the visible text of the first element matching selector; it waits
// for the element.
func text(ctx context.Context, selector string) string {
	testOf(ctx).Helper()
	// textContent, white space collapsed as innerText collapses it:
	// innerText is empty for a card off screen, which the page leaves
	// unrendered (content-visibility).
	must(ctx, "wait for "+selector, chromedp.WaitReady(chromedp.CSS(selector)))
	return must(ctx, "text of "+selector, chromedp.Evaluate[string](
		`document.querySelector(`+jsString(selector)+`).textContent.replace(/\s+/g, " ").trim()`))
}

// click clicks the first element matching selector; it waits until the
// element is visible.
func click(ctx context.Context, selector string) {
	testOf(ctx).Helper()
	// A card off screen is not rendered (content-visibility) until it
	// scrolls near: bring the element into view, and let a frame draw it.
	must(ctx, "scroll to "+selector, chromedp.Steps(
		chromedp.WaitReady(chromedp.CSS(selector)),
		chromedp.Evaluate[chromedp.Void](`new Promise(resolve => {
			document.querySelector(`+jsString(selector)+`).scrollIntoView({block: "center"});
			requestAnimationFrame(() => requestAnimationFrame(resolve));
		})`, chromedp.EvalAwaitPromise),
	))
	must(ctx, "click "+selector, chromedp.Click(chromedp.CSS(selector)))
}

// setInput sets the value of the input, select or textarea matching selector
// and dispatches input and change, as typing and leaving the field would.
func setInput(ctx context.Context, selector, value string) {
	testOf(ctx).Helper()
	must(ctx, "set "+selector, chromedp.Steps(
		chromedp.WaitReady(chromedp.CSS(selector)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
			const el = document.querySelector(%s);
			el.value = %s;
			el.dispatchEvent(new Event("input", {bubbles: true}));
			el.dispatchEvent(new Event("change", {bubbles: true}));
		})()`, jsString(selector), jsString(value))),
	))
}

// evaluate is the value of a JavaScript expression (awaited if a promise),
// decoded into T.
func evaluate[T any](ctx context.Context, expression string) T {
	testOf(ctx).Helper()
	return must(ctx, "evaluate "+expression, chromedp.Evaluate[T](expression, chromedp.EvalAwaitPromise))
}

// waitFor waits until a JavaScript expression is truthy: go-app applies
// updates asynchronously, so a test waits for the effect of a click.
func waitFor(ctx context.Context, expression string) {
	testOf(ctx).Helper()
	waitWithin(ctx, expression, actionTimeout)
}

// drawn waits until go-app has drawn the controller's latest change: the
// hot views (the status, the text) paint at once, the rest of the page at
// go-app's next frame, so a test reading a field after seeing the status
// waits for this first.
func drawn(ctx context.Context) {
	testOf(ctx).Helper()
	waitFor(ctx, `(p => !!p && (p.dataset.changed ?? '0') === p.dataset.drawn)(document.getElementById('playground'))`)
}

// waitWithin is waitFor with d to wait, for longer waits (a large model's
// download, a long run). An expression that reads an element not on the
// page yet (a TypeError: a card the page draws again after a new model,
// one a frame) is not true yet; any other error fails at once.
func waitWithin(ctx context.Context, expression string, d time.Duration) {
	testOf(ctx).Helper()
	guarded := `(() => { try { return (` + expression + `); } catch (e) { if (e instanceof TypeError) return false; throw e; } })()`
	mustWithin(ctx, "wait for "+expression, d, chromedp.Poll[chromedp.Void](guarded,
		chromedp.WithPollingInterval(5*time.Millisecond), chromedp.WithPollingTimeout(0)))
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// consoleLog collects a tab's console messages.
type consoleLog struct {
	mu       sync.Mutex
	messages []chromedp.ConsoleMessage
	expected []*regexp.Regexp // errors the test provokes (expectConsole)
}

func watchConsole(tab context.Context) *consoleLog {
	c := &consoleLog{}
	messages := chromedp.Console(tab) // subscribes now, before any navigation
	go func() {
		for m, err := range messages {
			if err != nil {
				return // the tab closed
			}
			c.mu.Lock()
			c.messages = append(c.messages, m)
			c.mu.Unlock()
		}
	}()
	return c
}

// goExit matches what wasm_exec.js prints (with console.log and warn) when
// the Go program panics or exits: the page is dead from then on.
var goExit = regexp.MustCompile(`(?m)^(panic: |fatal error: |exit code: )`)

// isProblem reports whether a console message means the page is broken: an
// error (including refused resources and CSP violations), an uncaught
// exception, or the Go program's panic or exit.
func isProblem(m chromedp.ConsoleMessage) bool {
	return m.Type == chromedp.ConsoleError || m.IsException() || goExit.MatchString(m.Text)
}

func (c *consoleLog) problems() []chromedp.ConsoleMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	var bad []chromedp.ConsoleMessage
	for _, m := range c.messages {
		if isProblem(m) && !slices.ContainsFunc(c.expected, func(re *regexp.Regexp) bool { return re.MatchString(m.Text) }) {
			bad = append(bad, m)
		}
	}
	return bad
}

func (c *consoleLog) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, m := range c.messages {
		fmt.Fprintf(&b, "%s %s:%d %s\n", m.Time.Format("15:04:05.000"), m.URL, m.Line, m)
	}
	return b.String()
}

// saveArtifacts writes a failed test's full-page screenshot, HTML and
// console to the artifacts folder.
func saveArtifacts(t *testing.T, tab context.Context, console *consoleLog) {
	dir := artifactsDir()
	base := filepath.Join(dir, regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(t.Name(), "_"))
	ctx, cancel := context.WithTimeout(tab, actionTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("no screenshot: %v", err)
	}
	html, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.documentElement.outerHTML"))
	if err != nil {
		t.Logf("no HTML: %v", err)
	}
	err = os.MkdirAll(dir, 0o755)
	for ext, data := range map[string][]byte{".png": png, ".html": []byte(html), ".console.txt": []byte(console.String())} {
		if err == nil && len(data) > 0 {
			err = os.WriteFile(base+ext, data, 0o644)
		}
	}
	if err != nil {
		t.Logf("saving the artifacts: %v", err)
		return
	}
	t.Logf("artifacts: %s.png, .html, .console.txt", base)
}

// artifactsDir is where tests leave screenshots for people to look at.
func artifactsDir() string {
	if dir := os.Getenv("NEXTTOKEN_ARTIFACTS"); dir != "" {
		return dir
	}
	return filepath.Join(os.TempDir(), "nexttoken-artifacts")
}

// TestPageLoads checks that the default page goes live in the browser.
func TestPageLoads(t *testing.T) {
	ctx := openPage(t, "/")
	if title := evaluate[string](ctx, "document.title"); !strings.Contains(title, "nexttoken") {
		t.Errorf("title %q lacks nexttoken", title)
	}
}

func TestConsoleProblems(t *testing.T) {
	for _, tc := range []struct {
		m    chromedp.ConsoleMessage
		want bool
	}{
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleLog, Text: "app worker 1a2b is activated"}, false},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleInfo, Text: "Banner not shown"}, false},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleError, Text: "Failed to load resource: 404"}, true},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleException, Text: "Uncaught TypeError: x is undefined"}, true},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleLog, Text: "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:"}, true},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleLog, Text: "fatal error: all goroutines are asleep - deadlock!"}, true},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleWarning, Text: "exit code: 2"}, true},
		{chromedp.ConsoleMessage{Type: chromedp.ConsoleLog, Text: "the user typed panic: in a prompt"}, false},
	} {
		if got := isProblem(tc.m); got != tc.want {
			t.Errorf("isProblem(%s) = %v", tc.m, got)
		}
	}
}

// TestHelpers checks the helpers on a plain page that records the events it
// gets.
func TestHelpers(t *testing.T) {
	h := needBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>helpers</title>
<input id="in"><button id="go">go</button><p id="log"></p>
<script>
const log = (s) => document.getElementById("log").textContent += s + ";";
document.getElementById("in").addEventListener("input", (e) => log("input " + e.target.value));
document.getElementById("in").addEventListener("change", (e) => log("change " + e.target.value));
document.getElementById("go").addEventListener("click", () => setTimeout(() => log("clicked"), 50));
</script>`)
	}))
	defer srv.Close()
	ctx := openTab(t, h.browser)
	must(ctx, "open the page", chromedp.Navigate(srv.URL))
	setInput(ctx, "#in", `a "quoted" value`)
	click(ctx, "#go")
	waitFor(ctx, `document.getElementById("log").textContent.includes("clicked")`)
	want := `input a "quoted" value;change a "quoted" value;clicked;`
	if got := text(ctx, "#log"); got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	if got := evaluate[int](ctx, "Promise.resolve(6 * 7)"); got != 42 {
		t.Errorf("evaluate: %d, want 42", got)
	}
}
