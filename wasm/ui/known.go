package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/catalog"
)

// knownModels are the model picker's options for the models known to work
// (catalog.Downloads), under a heading: choosing one opens its URL, as the
// URL field does.
func knownModels() []app.UI {
	options := make([]app.UI, len(catalog.Downloads)+1)
	options[0] = app.Option().Disabled(true).Text("Known to work, downloaded when chosen:")
	for i, d := range catalog.Downloads {
		label := d.Name + ", about " + itoa(int(d.Size/1e6)) + " MB"
		options[i+1] = app.Option().Value(d.URL).Text(label).Title(d.Shows + "; " + d.License)
	}
	return options
}

// downloadLabel names the model at url: a known model's name, or the URL.
func downloadLabel(url string) string {
	if d, ok := catalog.DownloadAt(url); ok {
		return d.Name
	}
	return url
}
