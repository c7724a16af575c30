//go:build !js

package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// Outside the browser there is no worker: the server prerenders with the
// engine in the process.
type engineLink struct{ remote *play.Remote }

func newEngineLink(app.Context, bool, *Playground) *engineLink { return nil }
func (*engineLink) runs(*fetching) bool                        { return false }
func (*engineLink) holds(string) bool                          { return false }

// InEngineWorker is false outside the browser.
func InEngineWorker() bool { return false }

// ServeEngineWorker has no page to serve outside the browser.
func ServeEngineWorker() {}
