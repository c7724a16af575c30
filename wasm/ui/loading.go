package ui

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// fetching is a model on its way over the network: a built-in model
// other than the toy (app.wasm holds only the toy model, so that the first
// page costs no model nobody looked at), or a GGUF file at a URL. The page
// shows another session meanwhile; once the files are in, open reads them
// and again opens the session that was asked for.
type fetching struct {
	name   string // the model's name in a Spec, or the URL for a new URL model
	label  string // for people
	urls   []string
	head   bool  // check the first file's head before fetching it whole
	got    int64 // bytes so far, of all files
	total  int64 // expected; -1 until the server says
	began  time.Time
	cancel chan struct{}
	// open opens the model from its files' bytes and the first one's
	// hash. hashed, when not nil, is the Ref of a model it names pending
	// (modelfile.Ref.Pending), from its hash, which hashed waits for: the
	// page renames the model by it (renameModel).
	open     func(data [][]byte, hash modelfile.Hash) (m *session.Model, hashed func() (pending, ref modelfile.Ref), err error)
	again    func(name string)
	err      string // why it failed
	canceled bool
	asking   int64         // the size of a large file the reader is asked about, until they answer
	confirm  chan struct{} // closed when they say download it
	report   string        // what the file's header says of it (modelfile.Report), once read

	// A GGUF file at a URL, which the engine's worker may download and
	// open in place of the page: ref is the link's, nil for a URL typed.
	url   bool
	ref   *modelfile.Ref
	id    int           // in the worker: the download's number there
	ended chan struct{} // in the worker: closed once the download there ends
}

// askAbove is the size above which the page asks before downloading a
// URL's file. A smaller file the preflight passes downloads at once: the
// reader asked for it by giving its URL, and the preflight shows above
// the progress what is coming. A larger one waits for a yes, with the
// report beside the question, as an app store shows a large download's
// size and requirements before the button that starts it.
const askAbove = 200 << 20

// fetchModel starts fetching the model that err says is not in the page:
// a built-in model this build does not embed, or a link's URL model. It
// reports whether it did; again runs when the model is in.
func (p *Playground) fetchModel(err error, again func()) bool {
	var missing *models.NotEmbeddedError
	var remote *notFetchedError
	switch {
	case !p.live:
		return false
	case errors.As(err, &missing):
		files, name := missing.Files, missing.Name
		resolve := func(file string) string { return p.ctx.ResolveStaticResource("/web/models/" + file) }
		p.startFetch(&fetching{name: name, label: modelLabel(name), total: files.Size,
			urls: []string{resolve(files.Checkpoint), resolve(files.Tokenizer)},
			open: func(data [][]byte, _ modelfile.Hash) (*session.Model, func() (modelfile.Ref, modelfile.Ref), error) {
				m, err := models.FromFiles(name, data[0], data[1])
				return m, nil, err
			},
			again: func(string) { again() }})
	case errors.As(err, &remote):
		ref := remote.ref
		p.startFetch(&fetching{name: ref.String(), label: downloadLabel(ref.Name), urls: []string{ref.Name}, total: ref.Size, head: true, url: true, ref: &ref,
			open: func(data [][]byte, hash modelfile.Hash) (*session.Model, func() (modelfile.Ref, modelfile.Ref), error) {
				return openURLModel(ref.Name, &ref, data[0], hash)
			},
			again: func(string) { again() }})
	default:
		return false
	}
	return true
}

// openURL fetches the GGUF file at u and opens a new session on it.
func (p *Playground) openURL(u string) {
	if err := modelfile.CheckURL(u); err != nil {
		p.files.err = err.Error()
		return
	}
	p.files.err = ""
	// The session opens on the model named by its URL, and the model is
	// renamed by its hash once the browser's digest is in.
	p.startFetch(&fetching{name: u, label: downloadLabel(u), urls: []string{u}, total: -1, head: true, url: true, again: p.ctl.OpenModel,
		open: func(data [][]byte, hash modelfile.Hash) (*session.Model, func() (modelfile.Ref, modelfile.Ref), error) {
			return openURLModel(u, nil, data[0], hash)
		}})
}

// notFetchedError is load's error for a link's URL model not fetched yet.
type notFetchedError struct{ ref modelfile.Ref }

func (e *notFetchedError) Error() string { return "this session runs on " + e.ref.Describe() }

// startFetch fetches f's files in the background.
func (p *Playground) startFetch(f *fetching) {
	if old := p.fetch; old != nil {
		if old.name == f.name && old.err == "" {
			old.again = f.again // already on its way
			return
		}
		p.stopFetch()
	}
	f.began, f.cancel, f.confirm = time.Now(), make(chan struct{}), make(chan struct{})
	p.fetch = f
	p.ctl.HoldAddress(true) // the address keeps the link that needs the model
	if p.worker.runs(f) {
		return
	}
	ctx := p.ctx
	chat := p.chatURL()
	digest := p.ctx.ResolveStaticResource(digestScript)
	ctx.Async(func() {
		data, hash, err := downloadAll(f.urls, f.total, f.head, f.cancel, digest, fetchEvents{
			progress: func(got, total int64) {
				ctx.Dispatch(func(app.Context) {
					f.got = got
					if f.total < 0 && total >= 0 {
						f.total = total
					}
				})
			},
			report: func(r string) { ctx.Dispatch(func(app.Context) { f.report = r }) },
			ask: func(size int64) bool {
				ctx.Dispatch(func(app.Context) { f.asking = size })
				select {
				case <-f.confirm:
					ctx.Dispatch(func(app.Context) { f.asking = 0 })
					return true
				case <-f.cancel:
					return false
				}
			},
		})
		var m *session.Model
		var hashed func() (pending, ref modelfile.Ref)
		if err == nil {
			m, hashed, err = f.open(data, hash)
		}
		mark("nexttoken:model-opened")
		chatErr := withChat(m, chat)
		ctx.Dispatch(func(app.Context) {
			p.noteChat(m, chatErr)
			p.fetched(f, m, "", err)
		})
		if err == nil && hashed != nil {
			pending, ref := hashed()
			ctx.Dispatch(func(app.Context) { p.renameModel(m, pending, ref) })
		}
	})
}

// fetchEvents is how a download tells how it goes: on the page, into its
// banner; in the engine's worker, in messages to the page.
type fetchEvents struct {
	progress func(got, total int64) // the bytes of all files so far; the file's total, -1 if not known
	report   func(string)           // what the first file's header says of it
	ask      func(size int64) bool  // waits for the reader's yes to a large file: false when they cancel
}

// downloadAll downloads the files at urls, total bytes together (-1 if
// not known), checking the first one's head first with head, and returns
// their bytes and the first one's Hash. It blocks: call it from a
// goroutine of its own, never the page's.
func downloadAll(urls []string, total int64, head bool, cancel <-chan struct{}, digest string, ev fetchEvents) ([][]byte, modelfile.Hash, error) {
	data := make([][]byte, len(urls))
	var hash modelfile.Hash // the first file's
	var err error
	var done int64
	shown := time.Now()
	for i, u := range urls {
		progress := func(got, fileTotal int64) {
			if time.Since(shown) >= progressEvery || got == fileTotal {
				shown = time.Now()
				ev.progress(done+got, fileTotal)
			}
		}
		limit := int64(modelfile.MaxFile)
		if total >= 0 {
			limit = total - done
		}
		if i == 0 && head {
			var size int64
			var report *modelfile.Report
			size, report, err = checkHead(u, limit)
			if report != nil {
				ev.report(report.String())
			}
			if err == nil && size > askAbove && !ev.ask(size) {
				err = errors.New("cancelled")
			}
		}
		if err == nil {
			var h modelfile.Hash
			data[i], h, err = download(u, limit, progress, cancel, digest)
			if i == 0 {
				hash = h
			}
		}
		if err != nil {
			break
		}
		done += int64(len(data[i]))
	}
	mark("nexttoken:downloaded")
	return data, hash, err
}

// openURLModel opens the GGUF file at u, read as data: as the model ref
// names when a link names it, checked against it, or else named by its
// URL until its hash is in, which hashed then waits for (the names it had
// and has).
func openURLModel(u string, ref *modelfile.Ref, data []byte, hash modelfile.Hash) (m *session.Model, hashed func() (pending, named modelfile.Ref), err error) {
	if ref == nil {
		m, pending, err := modelfile.OpenURLPending(u, data)
		return m, func() (modelfile.Ref, modelfile.Ref) { return pending, modelfile.HashedURL(u, data, hash) }, err
	}
	m, got, err := modelfile.OpenURLHashed(u, data, hash)
	if err == nil && got != *ref {
		err = fmt.Errorf("the file at %s has changed since the link was made: it is %s, the link's was %s",
			u, got.Describe(), ref.Describe())
	}
	return m, nil, err
}

// checkHead reads the preflight report of the file at u from its first
// bytes, when the server sends them alone, and refuses it if the report
// says the page will not open it or the file is larger than limit; it
// returns the file's size (-1 if not known) and the report (nil if there
// is none). It reads more of the file while its header goes on beyond the
// bytes read (modelfile.HeadSizes), and lets through one whose header is
// longer still, to be checked once in.
func checkHead(u string, limit int64) (int64, *modelfile.Report, error) {
	for _, n := range modelfile.HeadSizes {
		head, size, err := downloadHead(u, n)
		switch {
		case err != nil:
			return -1, nil, err
		case head == nil:
			return -1, nil, nil // no ranges here: the whole file is checked once in
		}
		r, err := modelfile.CheckHead(u, head, size)
		switch {
		case errors.Is(err, modelfile.ErrShortHead) && int64(len(head)) < size:
			continue
		case r != nil && err != nil:
			return size, r, refusal(r)
		case err == nil && size > limit:
			err = fmt.Errorf("%s is %s, more than the %s expected", u, byteSize(int(size)), byteSize(int(limit)))
		}
		return size, r, err
	}
	return -1, nil, nil
}

// refusal is the error of a model file whose report says the page will
// not open it: the report, which ends with why, a line for each thing.
func refusal(r *modelfile.Report) error {
	return errors.New("its header says this page cannot open it:\n" + r.String())
}

// confirmFetch is the reader's yes to downloading a large file.
func (p *Playground) confirmFetch() {
	if f := p.fetch; f != nil && f.asking > 0 {
		f.asking = 0
		close(f.confirm)
	}
}

// progressEvery is how often a download redraws its progress.
const progressEvery = 100 * time.Millisecond

// fetched takes f's model in, or its error, unless f was stopped: m when
// the page opened it, or the name of the one the engine's worker opened.
func (p *Playground) fetched(f *fetching, m *session.Model, name string, err error) {
	if p.fetch != f || f.canceled {
		return
	}
	if err != nil {
		f.err = err.Error()
		return
	}
	if m != nil {
		p.keep(m.Name, m)
		name = m.Name
	}
	p.fetch = nil
	p.ctl.HoldAddress(false)
	f.again(name)
}

// shownFetch is the download the page shows, or nil.
func (p *Playground) shownFetch() *fetching { return p.fetch }

// fetchOnPage downloads and opens f on the page, in place of the one
// shown: the engine's worker failed.
func (p *Playground) fetchOnPage(f *fetching) {
	p.fetch = nil
	p.startFetch(f)
}

// stopFetch cancels the download under way, if any.
func (p *Playground) stopFetch() {
	if f := p.fetch; f != nil {
		if f.err == "" {
			f.canceled = true
			close(f.cancel)
		}
		p.fetch = nil
	}
}

// cancelFetch is the Cancel button: the page stays on the session it
// shows, and the address bar follows it again.
func (p *Playground) cancelFetch() {
	if p.fetch == nil {
		return
	}
	p.ctl.Tell("Stopped loading " + p.fetch.label + ".")
	p.stopFetch()
	p.ctl.HoldAddress(false)
}

// anew is f's download again, from the start.
func (f *fetching) anew() *fetching {
	return &fetching{name: f.name, label: f.label, urls: f.urls, head: f.head, total: f.total, open: f.open, again: f.again, url: f.url, ref: f.ref}
}

// retryFetch is the Try again button.
func (p *Playground) retryFetch() {
	if f := p.fetch; f != nil && f.err != "" {
		p.fetch = nil
		p.startFetch(f.anew())
	}
}

func modelLabel(name string) string {
	if m, ok := catalog.Lookup(name); ok {
		return m.Label
	}
	return name
}

// loadingBanner shows the download under way, if any.
func (p *Playground) loadingBanner() app.UI {
	f := p.fetch
	if f == nil {
		return app.Text("")
	}
	return &Loading{Label: f.label, Got: f.got, Total: f.total, Seconds: time.Since(f.began).Seconds(), Err: f.err, Asking: f.asking, Report: f.report}
}

// Loading is a model's download: how much has come, how fast, how long
// it will still take, and Cancel; or why it failed, and Try again.
type Loading struct {
	app.Compo

	Label      string
	Got, Total int64
	Seconds    float64 // since the download began
	Err        string
	Asking     int64  // the size of a large file to ask about before downloading it
	Report     string // what the file's header says of it, "" until read
}

func (l *Loading) Render() app.UI {
	if l.Err != "" {
		return app.Div().ID("loading").Class("notice").Attr("role", "alert").Body(
			app.Text("Could not load "+l.Label+": "+l.Err+". "),
			app.Button().ID("loading-retry").Text("Try again").OnClick(l.onRetry),
		)
	}
	if l.Asking > 0 {
		return app.Div().ID("loading").Class("notice").Attr("role", "alert").Body(
			app.Text(l.Label+" is "+byteSize(int(l.Asking))+": download it? "),
			app.Button().ID("loading-confirm").Text("Download").OnClick(l.onConfirm),
			app.Button().ID("loading-cancel").Text("Cancel").OnClick(l.onCancel),
			l.report(),
		)
	}
	status := "Loading " + l.Label + ": " + byteSize(int(l.Got))
	bar := app.Progress() // without a value: how much is to come is not known yet
	if l.Total >= 0 {
		status += " of " + byteSize(int(l.Total))
		bar = bar.Max(l.Total).Value(l.Got)
	}
	if rate := float64(l.Got) / l.Seconds; l.Got > 0 && l.Seconds > 0 {
		status += ", " + byteSize(int(rate)) + "/s"
		if l.Total >= l.Got {
			status += ", " + strconv.FormatFloat(float64(l.Total-l.Got)/rate, 'f', 1, 64) + " s left"
		}
	}
	return app.Div().ID("loading").Class("notice loading").Attr("role", "status").Body(
		bar,
		app.Span().Text(" "+status+" "),
		app.Button().ID("loading-cancel").Text("Cancel").OnClick(l.onCancel),
		l.report(),
	)
}

// report is what the file's header says, under the banner's line.
func (l *Loading) report() app.UI {
	if l.Report == "" {
		return app.Text("")
	}
	return app.Div().ID("preflight").Text(l.Report)
}

// The banner's buttons are the page's actions (Playground.handleActions).
func (l *Loading) onCancel(ctx app.Context, e app.Event)  { ctx.NewAction(actionCancelFetch) }
func (l *Loading) onRetry(ctx app.Context, e app.Event)   { ctx.NewAction(actionRetryFetch) }
func (l *Loading) onConfirm(ctx app.Context, e app.Event) { ctx.NewAction(actionConfirmFetch) }
