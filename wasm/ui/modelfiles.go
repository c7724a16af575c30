package ui

import (
	"errors"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
)

// fileState is the page's part in models opened from the reader's files.
type fileState struct {
	reading string         // the files being read, for the status line
	err     string         // why the last files did not open
	wanted  *modelfile.Ref // the files a link's session needs, until opened
	again   func()         // opens that session, once they are
}

// status is the header's part of f: what the file field says under it,
// unless the banner asks for a link's files, which says it there.
func (f fileState) status() fileState {
	if f.wanted != nil {
		return fileState{}
	}
	return fileState{reading: f.reading, err: f.err}
}

// digestScript is the worker that hashes a model's files with the
// browser's SHA-256, off the page's thread (startDigest).
const digestScript = "/web/digest.js"

// notOpenedError is load's error for a model file the reader has not
// opened in this page.
type notOpenedError struct{ ref modelfile.Ref }

func (e *notOpenedError) Error() string {
	return "this session runs on a model from files: " + e.ref.Describe()
}

// askForFiles asks the reader for the files that err says a session
// needs, and reports whether it did; again runs once they are opened.
func (p *Playground) askForFiles(err error, again func()) bool {
	var missing *notOpenedError
	if !p.live || !errors.As(err, &missing) {
		return false
	}
	p.files = fileState{wanted: &missing.ref, again: again}
	return true
}

// openPicked opens the files chosen in the file field with the given id.
func (p *Playground) openPicked(id string) {
	list, err := pickedFiles(id)
	if err != nil {
		p.files.err = err.Error()
		return
	}
	p.openFiles(list)
}

// openFiles reads the files a reader chose and opens the model they hold:
// the session a link asked for, if it needs them, or a new session on it.
// A new session opens as soon as the files are read, on the model named by
// them (modelfile.OpenPending), while the browser hashes them; it is
// renamed by their hash when that is in (renameModel). A link's session
// waits for the hash, which says whether these are its files.
func (p *Playground) openFiles(list fileList) {
	p.files.reading, p.files.err = "Reading the files…", ""
	ctx := p.ctx
	chat := p.chatURL()
	digest := p.ctx.ResolveStaticResource(digestScript)
	waits := p.files.again != nil
	ctx.Async(func() {
		files, hash, err := readFiles(list, modelfile.MaxFile, digest)
		var m *session.Model
		var pending modelfile.Ref
		if err == nil {
			m, pending, err = modelfile.OpenPending(files...)
		}
		var chatErr error
		if err == nil {
			chatErr = withChat(m, chat)
		}
		mark("nexttoken:model-opened")
		if err != nil || waits {
			ref := pending
			if err == nil {
				ref, err = modelfile.Hashed(hash, files...)
				m.SetName(ref.String())
			}
			ctx.Dispatch(func(app.Context) {
				p.noteChat(m, chatErr)
				p.openedFiles(m, ref, err)
			})
			return
		}
		ctx.Dispatch(func(app.Context) {
			p.noteChat(m, chatErr)
			p.openedFiles(m, pending, nil)
		})
		ref, err := modelfile.Hashed(hash, files...)
		if err == nil {
			ctx.Dispatch(func(app.Context) { p.renameModel(m, pending, ref) })
		}
	})
}

// renameModel names m, opened from files or a URL and named by them
// (pending), by ref, their hash being in: in the page's models, its chat's
// errors, and the session and history of the controller, which then
// writes links. A model the page no longer holds by that name (the same
// files opened again since, a download stopped) is left alone.
func (p *Playground) renameModel(m *session.Model, pending, ref modelfile.Ref) {
	old, name := pending.String(), ref.String()
	if p.models[old] != m {
		return
	}
	m.SetName(name)
	delete(p.models, old)
	p.models[name] = m
	p.renamed(old, name)
}

// renamed follows a model's new name, name, in place of old: in what the
// page says of its chat template, and in the session and its history.
func (p *Playground) renamed(old, name string) {
	if why, ok := p.chatErrs[old]; ok {
		delete(p.chatErrs, old)
		p.chatErrs[name] = why
	}
	p.ctl.RenameModel(old, name)
}

func (p *Playground) openedFiles(m *session.Model, ref modelfile.Ref, err error) {
	p.files.reading = ""
	if err == nil && p.files.wanted != nil && *p.files.wanted != ref {
		err = errors.New("these files are " + ref.Describe() + ", but the session needs " + p.files.wanted.Describe())
	}
	if err != nil {
		p.files.err = err.Error()
		return
	}
	p.keep(ref.String(), m)
	if again := p.files.again; again != nil {
		p.files = fileState{}
		again()
		return
	}
	p.files = fileState{}
	p.ctl.OpenModel(ref.String())
}

// filesBanner asks for the files a link's session needs.
func (p *Playground) filesBanner() app.UI {
	w := p.files.wanted
	if w == nil {
		return app.Text("")
	}
	return app.Div().ID("wanted-files").Class("notice").Attr("role", "status").Body(
		app.Text("This link's session runs on a model opened from files, which stay on the computer that opened them: "),
		app.Strong().Text(w.Describe()),
		app.Text(". Open the same files to go on: "),
		app.Input().ID("wanted-file").Type("file").Attr("multiple", true).Attr("accept", ".gguf,.bin").
			Attr("aria-label", "the model's files").OnChange(onWantedFile),
		fileStatus(p.files),
	)
}

func onWantedFile(ctx app.Context, e app.Event) {
	ctx.NewActionWithValue(actionOpenFiles, "wanted-file")
}

// handleActions handles the page's own actions, which its views post.
func (p *Playground) handleActions(ctx app.Context) {
	ctx.Handle(actionOpenFiles, func(ctx app.Context, a app.Action) {
		if id, ok := a.Value.(string); ok {
			p.openPicked(id)
		}
	})
	ctx.Handle(actionOpenURL, func(ctx app.Context, a app.Action) {
		if u, ok := a.Value.(string); ok {
			p.openURL(u)
		}
	})
	ctx.Handle(actionCancelFetch, func(app.Context, app.Action) { p.cancelFetch() })
	ctx.Handle(actionRetryFetch, func(app.Context, app.Action) { p.retryFetch() })
	ctx.Handle(actionConfirmFetch, func(app.Context, app.Action) { p.confirmFetch() })
}

// fileStatus is the line under a file field: reading, or why the files
// did not open.
func fileStatus(f fileState) app.UI {
	switch {
	case f.reading != "":
		return app.Span().ID("file-status").Class("hint").Attr("role", "status").Text(f.reading)
	case f.err != "":
		return app.Span().ID("file-status").Class("field-error").Attr("role", "alert").Text(f.err)
	}
	return app.Text("")
}
