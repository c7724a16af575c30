//go:build !js

package ui

import (
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/wasm/play"
)

// heldEngine answers a request only when the test says, as the engine's
// worker answers a few milliseconds on.
type heldEngine struct {
	eng     play.Engine
	waiting []func()
}

func (h *heldEngine) Send(r play.Request, answer func(play.Answer)) {
	h.waiting = append(h.waiting, func() { h.eng.Send(r, answer) })
}

// answer answers the first request out; it reports whether there was one.
func (h *heldEngine) answer() bool {
	if len(h.waiting) == 0 {
		return false
	}
	f := h.waiting[0]
	h.waiting = h.waiting[1:]
	f()
	return true
}

// drawingHost draws the page's hot views when the controller says so, as
// Playground.Changed does.
type drawingHost struct {
	serverHost
	p *Playground
}

func (h drawingHost) Changed() { h.p.board.show(h.p.ctl.Snapshot()) }

// TestRenderWhileHolding renders the page while the engine works on a
// change, as any event in a card does (go-app renders the card's parents
// too): a Step's summary is in, the detail of the step shown on its way.
// The page shows what it last drew, its step's cards (and the slider
// under the reader's pointer), not "Working…" in their place.
func TestRenderWhileHolding(t *testing.T) {
	p := &Playground{live: true, pagePath: "/", board: &board{}}
	eng := &heldEngine{eng: &play.Local{Load: p.load}}
	p.ctl = play.New(eng, drawingHost{p: p}, "/")
	p.ctl.Open(toySpec(1))
	for eng.answer() {
	}
	p.later = laterParts
	if page := app.HTMLString(p); !strings.Contains(page, `class="views"`) {
		t.Fatalf("the settled page has no step's cards: %s", htmlText(page))
	}
	drawn := p.board.snapshot().Steps()
	p.ctl.Step()
	p.ctl.Select(0) // while the step is out: its answer's detail is another step's
	if !eng.answer() || len(eng.waiting) == 0 {
		t.Fatal("the Step's answer did not ask for the detail of the step shown")
	}
	page := app.HTMLString(p)
	if !strings.Contains(page, `class="views"`) || strings.Contains(page, "Working…") {
		t.Errorf("rendered while the detail is on its way, the page has step's cards %v, says Working… %v",
			strings.Contains(page, `class="views"`), strings.Contains(page, "Working…"))
	}
	for eng.answer() {
	}
	if got := p.board.snapshot().Steps(); got != drawn+1 {
		t.Errorf("drawn %d steps once answered, want %d", got, drawn+1)
	}
	if page := app.HTMLString(p); !strings.Contains(page, `class="views"`) {
		t.Error("the page answered has no step's cards")
	}
}

// TestNewModelDrawsItsTopFirst: the page of a new model, the first one
// included, is drawn as the page's start draws it, its top first and its
// later parts one a frame after; another session of the same model, and
// an embed, are drawn whole.
func TestNewModelDrawsItsTopFirst(t *testing.T) {
	p := &Playground{live: true, pagePath: "/", board: &board{}}
	p.ctl = play.New(&play.Local{Load: p.load}, drawingHost{p: p}, "/")
	for _, tc := range []struct {
		what    string
		open    func()
		newPage bool
	}{
		{"the first session", func() { p.ctl.Open(toySpec(1)) }, true},
		{"another session of the same model", func() { p.ctl.Open(toySpec(3)) }, false},
		{"another model", func() { p.ctl.Open(stories(1, sampler.DefaultSettings())) }, true},
		{"that model's embed", func() { p.ctl.OpenAddress("model=stories260K&steps=2&embed=1", "") }, false},
	} {
		p.later = laterParts
		tc.open()
		if got := p.newModelPage(p.ctl.Snapshot()); got != tc.newPage {
			t.Errorf("%s: a new model's page %v, want %v", tc.what, got, tc.newPage)
		}
		page := app.HTMLString(p)
		if drawnWhole := strings.Contains(page, `id="kv"`); drawnWhole == tc.newPage {
			t.Errorf("%s: the page is drawn whole %v, want %v", tc.what, drawnWhole, !tc.newPage)
		}
		if !strings.Contains(page, `id="step"`) {
			t.Errorf("%s: the page has no top: %s", tc.what, htmlText(page))
		}
	}
}
