package ui

import (
	neturl "net/url"
	"path"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/web/models"
)

// modelCache is the Cache Storage cache that keeps downloaded models, so
// that a second visit costs no download. Its name starts nexttoken-, which
// the service worker keeps (appWorker).
const modelCache = "nexttoken-models"

// storedModel is a file in the browser's model cache.
type storedModel struct {
	url  string
	size int64 // -1 if not known
}

// StoredModels lists the model files the browser keeps, with their sizes
// and a Delete button each; it reads the cache when opened.
type StoredModels struct {
	app.Compo

	open  bool
	files []storedModel
	err   string
}

func (s *StoredModels) Render() app.UI {
	body := []app.UI{app.Summary().Text("Models stored in this browser")}
	if s.open {
		var rows []app.UI
		var total int64
		for i, f := range s.files {
			size := "size unknown"
			if f.size >= 0 {
				size = byteSize(int(f.size))
				total += f.size
			}
			rows = append(rows, app.Li().DataSet("url", f.url).Body(
				app.Span().Title(f.url).Text(storedName(f.url)+", "+size+" "),
				app.Button().Class("forget").Text("Delete").OnClick(s.onForget(i), app.EventScope(f.url)),
			))
		}
		switch {
		case s.err != "":
			body = append(body, app.P().Class("field-error").Attr("role", "alert").Text(s.err))
		case len(rows) == 0:
			body = append(body, app.P().Class("hint").Text("None: a model fetched from the server or a URL is kept here, so that the next visit need not download it."))
		default:
			body = append(body, app.Ul().ID("stored-list").Body(rows...),
				app.P().Class("hint").Text(byteSize(int(total))+" in all."))
		}
	}
	return app.Details().ID("stored-models").Class("stored").OnToggle(s.onToggle).Body(body...)
}

// storedName is how the list names a stored file: a built-in model's
// file by the model's name and what the file is, another by its name and
// where it came from.
func storedName(url string) string {
	if i := strings.Index(url, "/web/models/"); i >= 0 {
		file := url[i+len("/web/models/"):]
		for name, f := range models.Files {
			switch file {
			case f.Checkpoint:
				return modelLabel(name) + ", its weights"
			case f.Tokenizer:
				return modelLabel(name) + ", its tokenizer"
			}
		}
		return file
	}
	if u, err := neturl.Parse(url); err == nil && u.Host != "" {
		return path.Base(u.Path) + " from " + u.Host
	}
	return url
}

func (s *StoredModels) onToggle(ctx app.Context, e app.Event) {
	s.open = ctx.JSSrc().Get("open").Bool()
	if s.open {
		s.refresh(ctx)
	}
}

func (s *StoredModels) refresh(ctx app.Context) {
	ctx.Async(func() {
		files, err := storedModels()
		ctx.Dispatch(func(app.Context) {
			s.files, s.err = files, ""
			if err != nil {
				s.err = "The browser's Cache Storage cannot be read here: " + err.Error()
			}
		})
	})
}

func (s *StoredModels) onForget(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if i >= len(s.files) {
			return
		}
		url := s.files[i].url
		ctx.Async(func() {
			err := forgetModel(url)
			ctx.Dispatch(func(ctx app.Context) {
				if err != nil {
					s.err = err.Error()
					return
				}
				s.refresh(ctx)
			})
		})
	}
}
