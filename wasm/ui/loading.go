package ui

import (
	"errors"
	"strconv"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
	"nexttoken/engine/session"
	"nexttoken/web/models"
)

// fetching is a built-in model on its way from the server: app.wasm holds
// only the toy model, so that the first page costs no model nobody looked
// at. The page shows another session meanwhile; once the files are in,
// again opens what was asked for.
type fetching struct {
	name     string
	got      int64 // bytes so far, of both files
	total    int64
	began    time.Time
	cancel   chan struct{}
	again    func()
	err      string // why it failed
	canceled bool
}

// fetchModel starts fetching the model that err says this build does not
// embed, and reports whether it did; again runs when the model is in.
func (p *Playground) fetchModel(err error, again func()) bool {
	var missing *models.NotEmbeddedError
	if !p.live || !errors.As(err, &missing) {
		return false
	}
	if f := p.fetch; f != nil {
		if f.name == missing.Name && f.err == "" {
			f.again = again // already on its way
			return true
		}
		p.stopFetch()
	}
	f := &fetching{name: missing.Name, total: missing.Files.Size, began: time.Now(), cancel: make(chan struct{}), again: again}
	p.fetch = f
	ctx, files := p.ctx, missing.Files
	ctx.Async(func() {
		var data [2][]byte
		var err error
		var done int64
		shown := time.Now()
		for i, name := range []string{files.Checkpoint, files.Tokenizer} {
			progress := func(got, _ int64) {
				if time.Since(shown) >= progressEvery {
					shown = time.Now()
					ctx.Dispatch(func(app.Context) { f.got = done + got })
				}
			}
			if data[i], err = download(ctx.ResolveStaticResource("/web/models/"+name), files.Size, progress, f.cancel); err != nil {
				break
			}
			done += int64(len(data[i]))
		}
		ctx.Dispatch(func(app.Context) { p.fetched(f, data, err) })
	})
	return true
}

// progressEvery is how often a download redraws its progress.
const progressEvery = 100 * time.Millisecond

// fetched takes f's files in, or its error, unless f was stopped.
func (p *Playground) fetched(f *fetching, data [2][]byte, err error) {
	if p.fetch != f || f.canceled {
		return
	}
	if err == nil {
		var m *session.Model
		if m, err = models.FromFiles(f.name, data[0], data[1]); err == nil {
			if p.models == nil {
				p.models = map[string]*session.Model{}
			}
			p.models[f.name] = m
			p.fetch = nil
			f.again()
			return
		}
	}
	f.err = err.Error()
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
	p.notice = "Stopped loading " + modelLabel(p.fetch.name) + "."
	p.stopFetch()
	p.syncAddress()
}

// retryFetch is the Try again button.
func (p *Playground) retryFetch() {
	if f := p.fetch; f != nil && f.err != "" {
		p.fetch = nil
		f.again()
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
	return &Loading{Label: modelLabel(f.name), Got: f.got, Total: f.total, Seconds: time.Since(f.began).Seconds(), Err: f.err, Page: p}
}

// Loading is a model's download: how much has come, how fast, how long
// it will still take, and Cancel; or why it failed, and Try again.
type Loading struct {
	app.Compo

	Label      string
	Got, Total int64
	Seconds    float64 // since the download began
	Err        string
	Page       *Playground
}

func (l *Loading) Render() app.UI {
	if l.Err != "" {
		return app.Div().ID("loading").Class("notice").Attr("role", "alert").Body(
			app.Text("Could not load "+l.Label+": "+l.Err+". "),
			app.Button().ID("loading-retry").Text("Try again").OnClick(l.onRetry),
		)
	}
	status := "Loading " + l.Label + ": " + byteSize(int(l.Got)) + " of " + byteSize(int(l.Total))
	if rate := float64(l.Got) / l.Seconds; l.Got > 0 && l.Seconds > 0 {
		status += ", " + byteSize(int(rate)) + "/s"
		if l.Total > l.Got {
			status += ", " + strconv.FormatFloat(float64(l.Total-l.Got)/rate, 'f', 1, 64) + " s left"
		}
	}
	return app.Div().ID("loading").Class("notice loading").Attr("role", "status").Body(
		app.Progress().Max(l.Total).Value(l.Got),
		app.Span().Text(" "+status+" "),
		app.Button().ID("loading-cancel").Text("Cancel").OnClick(l.onCancel),
	)
}

func (l *Loading) onCancel(ctx app.Context, e app.Event) { l.Page.cancelFetch() }
func (l *Loading) onRetry(ctx app.Context, e app.Event)  { l.Page.retryFetch() }
