//go:build js

package ui

import (
	"errors"
	"strconv"

	"github.com/hack-pad/safejs"
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
	"nexttoken/wasm/jsx"
	"nexttoken/wasm/play"
)

// engineScript is the engine's worker, both its sides (web/engine-worker.js).
const engineScript = "/web/engine-worker.js"

// engineLink is the page's end of the engine's worker: the models the
// reader brings by URL are downloaded, opened and run there, off the
// page's thread. The worker starts with the first such model. Requests and
// answers cross through a play.Remote; downloads, their progress and the
// prefill's progress and Stop as small messages of their own. Where the
// worker cannot start, or fails, the page downloads and runs the model
// itself, as it does the built-in ones.
type engineLink struct {
	ctx     app.Context // the page's, for work that outlives an event
	simd    bool        // the page's kernels are SIMD ones: the worker's are too
	page    linkPage
	remote  *play.Remote
	post    safejs.Value      // the worker's post, once it is started
	waiting []any             // messages posted before it was
	started bool              // post is there
	booting bool              // the worker is on its way
	broken  error             // why the worker does not run, once it does not
	far     map[string]bool   // the models in the worker, by name
	fetches map[int]*fetching // the worker's downloads under way, by number (fetching.id)
	lastID  int               // the last download's number
	box     prefillBox        // the prefill's notice, while the worker prefills
	halted  bool              // the notice's Stop was pressed: its prefill ends
	receive safejs.Func       // the worker's messages to the page
}

// linkPage is what the engine's worker asks of the page (a *Playground):
// the page keeps the download it shows, the link carries it.
type linkPage interface {
	shownFetch() *fetching                                         // the download the page shows, or nil
	fetched(f *fetching, m *session.Model, name string, err error) // f ended: the model is in the worker, called name, or err
	fetchOnPage(f *fetching)                                       // the page downloads and opens f itself
	noteChatOf(name, why string)                                   // why the model's chat template did not load, or ""
	renamed(old, name string)                                      // the model called old is now called name
	chatURL() string                                               // where the chat templates' program is
}

func newEngineLink(ctx app.Context, simd bool, page linkPage) *engineLink {
	l := &engineLink{ctx: ctx, simd: simd, page: page, far: map[string]bool{}, fetches: map[int]*fetching{}}
	l.remote = play.NewRemote(l)
	return l
}

// holds reports whether the model called name is in the worker.
func (l *engineLink) holds(name string) bool { return l.far[name] }

// Post sends one of the Remote's requests, moving its bytes to the worker.
func (l *engineLink) Post(msg []byte) {
	buf, err := arrayBuffer(msg)
	if err != nil {
		l.fail(err)
		return
	}
	l.send(buf)
}

// send posts msg to the worker, or keeps it until the worker is started.
func (l *engineLink) send(msg any) {
	if !l.started {
		l.waiting = append(l.waiting, msg)
		l.start()
		return
	}
	if _, err := l.post.Invoke(msg); err != nil {
		l.fail(err)
	}
}

// start starts the worker, once: it loads the script's page side, which
// starts the worker on the program the page runs.
func (l *engineLink) start() {
	if l.booting || l.broken != nil {
		return
	}
	l.booting = true
	var err error
	l.receive, err = safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			l.take(args[0])
		}
		return nil
	})
	if err != nil {
		l.fail(err)
		return
	}
	ctx := l.ctx
	script := ctx.ResolveStaticResource(engineScript)
	wasm := ctx.ResolveStaticResource("/web/app.wasm")
	threads := play.ThreadsAsked(ctx.Page().URL().RawQuery)
	ctx.Async(func() {
		_, err := jsx.Await(safejs.Global().Call("nexttokenScript", script))
		var post safejs.Value
		if err == nil {
			post, err = safejs.Global().Call("nexttokenEngineStart", wasm, l.simd, threads, l.receive.Value())
		}
		ctx.Dispatch(func(app.Context) {
			if err != nil {
				l.fail(err)
				return
			}
			l.post, l.started = post, true
			for _, msg := range l.waiting {
				l.send(msg)
			}
			l.waiting = nil
		})
	})
}

// fail gives up on the worker: its requests out get the error, and a
// download under way there starts again on the page.
func (l *engineLink) fail(err error) {
	if l.broken != nil {
		return
	}
	l.broken = errors.New("the engine's worker stopped: " + err.Error())
	l.box.remove()
	l.remote.Close(l.broken)
	if f := l.page.shownFetch(); f != nil && l.fetches[f.id] == f && f.err == "" {
		l.page.fetchOnPage(f.anew())
	}
}

// runs downloads and opens f's model in the worker, when it is a URL's
// and the worker runs; it reports whether it does.
func (l *engineLink) runs(f *fetching) bool {
	if l == nil || l.broken != nil || !f.url {
		return false
	}
	l.lastID++
	f.id, f.ended = l.lastID, make(chan struct{})
	l.fetches[f.id] = f
	ctx := l.ctx
	job := map[string]any{"id": f.id, "url": f.urls[0], "total": float64(f.total), "chat": l.page.chatURL(),
		"digest": ctx.ResolveStaticResource(digestScript), "kernels": ctx.ResolveStaticResource("/web/kernels") + "/"}
	if f.ref != nil {
		job["ref"] = f.ref.String()
	}
	l.send(map[string]any{"fetch": job})
	// The reader's Cancel and Download reach the worker as they come.
	id, confirm, cancel, ended := f.id, f.confirm, f.cancel, f.ended
	go func() {
		for {
			select {
			case <-ended:
				return
			case <-cancel:
				ctx.Dispatch(func(app.Context) { l.send(map[string]any{"cancel": id}) })
				return
			case <-confirm:
				confirm = nil
				ctx.Dispatch(func(app.Context) { l.send(map[string]any{"confirm": id}) })
			}
		}
	}()
	return true
}

// take takes in a message from the worker. It runs in the worker's
// message event: it reads the message and leaves the rest to the page's
// goroutine.
func (l *engineLink) take(data safejs.Value) {
	ctx := l.ctx
	if isArrayBuffer(data) {
		msg, err := jsx.Bytes(data)
		ctx.Dispatch(func(app.Context) {
			if err == nil {
				err = l.remote.Receive(msg)
			}
			if err != nil {
				l.fail(err)
			}
		})
		return
	}
	switch {
	case has(data, "failed"):
		why := text(data, "failed")
		ctx.Dispatch(func(app.Context) { l.fail(errors.New(why)) })
	case has(data, "fetch"):
		v, _ := data.Get("fetch")
		id, got, total := number(v, "id"), number(v, "got"), number(v, "total")
		report, asking := text(v, "report"), number(v, "asking")
		hasGot, hasReport, hasAsking := has(v, "got"), has(v, "report"), has(v, "asking")
		ctx.Dispatch(func(app.Context) {
			f := l.fetches[int(id)]
			if f == nil || l.page.shownFetch() != f {
				return
			}
			switch {
			case hasGot:
				f.got = int64(got)
				if f.total < 0 && total >= 0 {
					f.total = int64(total)
				}
			case hasReport:
				f.report = report
			case hasAsking:
				f.asking = int64(asking)
			}
		})
	case has(data, "fetched"):
		v, _ := data.Get("fetched")
		id, name, why, chatWhy := int(number(v, "id")), text(v, "name"), text(v, "err"), text(v, "chatErr")
		ctx.Dispatch(func(app.Context) { l.fetched(id, name, why, chatWhy) })
	case has(data, "renamed"):
		v, _ := data.Get("renamed")
		old, name := text(v, "old"), text(v, "name")
		ctx.Dispatch(func(app.Context) {
			if !l.far[old] {
				return
			}
			l.far[name] = true // and old stays: a request on its way may name it
			l.page.renamed(old, name)
		})
	case has(data, "prefill"):
		v, _ := data.Get("prefill")
		if has(v, "end") {
			l.box.remove()
			l.halted = false
			return
		}
		if l.halted {
			return
		}
		if !jsx.Truthy(l.box.el) {
			l.box.add(func() {
				l.halted = true
				l.box.remove()
				l.send(map[string]any{"interrupt": true})
			})
		}
		_ = l.box.text.Set("textContent", prefillProgress(int(number(v, "done")), int(number(v, "total")), number(v, "rate")))
	}
}

// fetched takes in the end of the worker's download number id: the
// model's name there, or why it failed, and why its chat template did
// not load, if it did not.
func (l *engineLink) fetched(id int, name, why, chatWhy string) {
	f := l.fetches[id]
	if f == nil {
		return
	}
	delete(l.fetches, id)
	close(f.ended)
	if why != "" {
		l.page.fetched(f, nil, "", errors.New(why))
		return
	}
	l.far[name] = true
	l.page.noteChatOf(name, chatWhy)
	l.page.fetched(f, nil, name, nil)
}

// arrayBuffer is a new ArrayBuffer holding a copy of msg, to be moved
// to the other side.
func arrayBuffer(msg []byte) (safejs.Value, error) {
	array, err := jsx.New("Uint8Array", len(msg))
	if err == nil {
		_, err = safejs.CopyBytesToJS(array, msg)
	}
	if err != nil {
		return safejs.Undefined(), err
	}
	return array.Get("buffer")
}

// isArrayBuffer reports whether v is an ArrayBuffer.
func isArrayBuffer(v safejs.Value) bool {
	t, err := safejs.Global().Get("ArrayBuffer")
	if err != nil {
		return false
	}
	ok, err := v.InstanceOf(t)
	return err == nil && ok
}

// has reports whether object v has a field called name that is not
// undefined.
func has(v safejs.Value, name string) bool {
	f, err := v.Get(name)
	return err == nil && !f.IsUndefined()
}

// text is v's field name as a string, "" if it is none.
func text(v safejs.Value, name string) string {
	f, err := v.Get(name)
	if err != nil || f.Type() != safejs.TypeString {
		return ""
	}
	s, _ := f.String()
	return s
}

// number is v's field name as a number, 0 if it is none.
func number(v safejs.Value, name string) float64 {
	f, err := v.Get(name)
	if err != nil || f.Type() != safejs.TypeNumber {
		return 0
	}
	n, _ := f.Float()
	return n
}

// InEngineWorker reports whether the program runs as the engine's worker
// (web/engine-worker.js), not as the page.
func InEngineWorker() bool {
	v, err := safejs.Global().Get("nexttokenEngineWorker")
	return err == nil && jsx.Truthy(v)
}

// workerEngine is the engine's worker's side: a play.Server with the
// session of the page's models that run here, and their downloads.
type workerEngine struct {
	api     safejs.Value // nexttokenEngineWorker
	opts    session.Options
	local   *play.Local
	server  *play.Server
	jobs    chan func()               // the page's requests and the renames, in order
	models  map[string]*session.Model // the models opened here, by name
	fetches map[int]*workerFetch      // the downloads under way, by number
	stop    bool                      // the page pressed the prefill's Stop
}

// workerFetch is a download in the worker: closed when the reader says
// download it after all, or cancel.
type workerFetch struct {
	confirm, cancel chan struct{}
}

// ServeEngineWorker serves the engine to the page from its worker, for
// good.
func ServeEngineWorker() {
	api, _ := safejs.Global().Get("nexttokenEngineWorker")
	if warmUp, _ := api.Get("warmUp"); jsx.Truthy(warmUp) {
		return // a warm-up only runs the program's start (web/warm-up.js)
	}
	w := &workerEngine{api: api, jobs: make(chan func(), 256), models: map[string]*session.Model{}, fetches: map[int]*workerFetch{}}
	markHook = func(name string) { w.post(map[string]any{"mark": name}) }
	listen, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			w.take(args[0])
		}
		return nil
	})
	if err == nil {
		_, err = api.Call("listen", listen.Value())
	}
	if err != nil {
		w.post(map[string]any{"failed": err.Error()})
		return
	}
	if simd, _ := api.Get("simd"); jsx.Truthy(simd) {
		opts, err := session.LoadSIMD()
		if err != nil {
			w.attr("data-worker-kernel-error", err.Error()) // it runs Go's kernels
		}
		w.opts = opts
	}
	if n := int(number(api, "threads")); n >= 2 && w.opts.Kernels.Shared() {
		go w.startThreads(n)
	}
	w.local = &play.Local{Load: w.load, Options: w.opts}
	w.local.Options.Prefill = w.prefill()
	w.server = play.Serve(w.local, w)
	w.post(map[string]any{"ready": true})
	for job := range w.jobs {
		job()
	}
}

// startThreads runs the kernels' products on n threads, as the page
// does on its own (web/kernel-threads.js, loaded beside this worker's
// script), and says so on the page's root: data-worker-threads, or
// data-worker-threads-error.
func (w *workerEngine) startThreads(n int) {
	if err := StartThreads(w.opts, "kernel-threads.js", n); err != nil {
		w.attr("data-worker-threads-error", err.Error())
		return
	}
	w.attr("data-worker-threads", strconv.Itoa(n))
}

// attr sets attribute name of the page's root to value.
func (w *workerEngine) attr(name, value string) { w.post(map[string]any{"attr": []any{name, value}}) }

// take takes in a message from the page, in its message event.
func (w *workerEngine) take(data safejs.Value) {
	if isArrayBuffer(data) {
		msg, err := jsx.Bytes(data)
		w.queue(func() {
			if err != nil {
				w.post(map[string]any{"failed": err.Error()})
				return
			}
			w.stop = false
			steps := w.local.Decoded.Steps
			_ = w.server.Receive(msg) // a request that does not decode is answered with the error
			if d := w.local.Decoded; d.Steps != steps {
				// The engine's own speed, for the page to compare its own with.
				w.attr("data-worker-decoded", strconv.Itoa(d.Steps)+" "+strconv.FormatFloat(d.Time.Seconds()*1000, 'f', 1, 64))
			}
		})
		return
	}
	switch {
	case has(data, "interrupt"):
		w.stop = true
	case has(data, "fetch"):
		v, _ := data.Get("fetch")
		id := int(number(v, "id"))
		f := &workerFetch{confirm: make(chan struct{}), cancel: make(chan struct{})}
		w.fetches[id] = f
		var ref *modelfile.Ref
		if has(v, "ref") {
			r, err := modelfile.ParseRef(text(v, "ref"))
			if err != nil {
				w.post(map[string]any{"fetched": map[string]any{"id": id, "err": err.Error()}})
				return
			}
			ref = &r
		}
		go w.fetch(id, f, text(v, "url"), ref, int64(number(v, "total")), text(v, "chat"), text(v, "digest"), text(v, "kernels"))
	case has(data, "confirm"):
		if f := w.fetches[int(number(data, "confirm"))]; f != nil {
			close(f.confirm)
			f.confirm = make(chan struct{}) // closed once
		}
	case has(data, "cancel"):
		if f := w.fetches[int(number(data, "cancel"))]; f != nil {
			close(f.cancel)
			delete(w.fetches, int(number(data, "cancel")))
		}
	}
}

// queue runs job after the jobs before it; it never blocks the event it
// is called in.
func (w *workerEngine) queue(job func()) {
	select {
	case w.jobs <- job:
	default:
		go func() { w.jobs <- job }()
	}
}

// Post sends one of the Server's answers, moving its bytes to the page.
func (w *workerEngine) Post(msg []byte) {
	buf, err := arrayBuffer(msg)
	if err != nil {
		w.post(map[string]any{"failed": err.Error()})
		return
	}
	w.post(buf)
}

// post sends a message to the page.
func (w *workerEngine) post(msg any) { _, _ = w.api.Call("post", msg) }

// load finds a model opened here.
func (w *workerEngine) load(name string) (*session.Model, error) {
	if m, ok := w.models[name]; ok {
		return m, nil
	}
	return nil, errors.New(name + " is not open in the engine's worker")
}

// fetch downloads and opens the GGUF file at url, as ref says if a link
// named it, and tells the page how it goes and how it went.
func (w *workerEngine) fetch(id int, f *workerFetch, url string, ref *modelfile.Ref, total int64, chat, digest, kernels string) {
	tell := func(fields map[string]any) {
		fields["id"] = id
		w.post(map[string]any{"fetch": fields})
	}
	data, hash, err := downloadAll([]string{url}, total, true, f.cancel, digest, fetchEvents{
		progress: func(got, total int64) { tell(map[string]any{"got": float64(got), "total": float64(total)}) },
		report:   func(r string) { tell(map[string]any{"report": r}) },
		ask: func(size int64) bool {
			tell(map[string]any{"asking": float64(size)})
			select {
			case <-f.confirm:
				tell(map[string]any{"asking": 0})
				return true
			case <-f.cancel:
				return false
			}
		},
	})
	var m *session.Model
	var hashed func() (pending, named modelfile.Ref)
	if err == nil {
		m, hashed, err = openURLModel(url, ref, data[0], hash)
	}
	mark("nexttoken:model-opened")
	chatErr := withChat(m, chat)
	w.queue(func() {
		delete(w.fetches, id)
		end := map[string]any{"id": id}
		if err != nil {
			end["err"] = err.Error()
		} else {
			w.models[m.Name] = m
			end["name"] = m.Name
			go addKernels(w.opts, m, kernels, w.attr)
		}
		if chatErr != nil {
			end["chatErr"] = chatErr.Error()
		}
		w.post(map[string]any{"fetched": end})
	})
	if err != nil || hashed == nil {
		return
	}
	pending, named := hashed()
	w.queue(func() {
		old, name := pending.String(), named.String()
		if w.models[old] != m {
			return
		}
		m.SetName(name)
		w.models[name] = m // and old stays: a request on its way may name it
		w.post(map[string]any{"renamed": map[string]any{"old": old, "name": name}})
	})
}

// prefill is the worker's session.Progress: once a prefill has run
// prefillAfter, it tells the page how far it has come at every report,
// and lets the worker read the page's messages, a Stop among them, which
// stops the prefill at the next report (errPrefillStopped).
func (w *workerEngine) prefill() session.Progress {
	var pace prefillPace
	var told bool
	return func(done, total int) error {
		pace.report(done)
		if w.stop || done == total {
			if told {
				w.post(map[string]any{"prefill": map[string]any{"end": true}})
			}
			pace, told = prefillPace{}, false
			if w.stop {
				return errPrefillStopped
			}
			return nil
		}
		if !pace.shown() {
			return nil
		}
		told = true
		w.post(map[string]any{"prefill": map[string]any{"done": done, "total": total, "rate": pace.rate(done)}})
		_, _ = jsx.Await(w.api.Call("pause"))
		return nil
	}
}
