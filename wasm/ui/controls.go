package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// renderControls shows the step buttons with their keyboard shortcuts.
func (p *Playground) renderControls() app.UI {
	steps := len(p.sess.Trace().Steps)
	run := "Run"
	if p.running {
		run = "Stop"
	}
	status := p.stopped
	if status == "" {
		status = strconv.Itoa(steps) + " steps"
		if steps == 1 {
			status = "1 step"
		}
	}
	return app.Nav().Class("controls").Attr("aria-label", "decoding controls").Body(
		button("step", "Step", "→", p.next == nil, p.step),
		app.Span().Class("run").Body(
			button("run", run, "g", p.next == nil && !p.running, p.toggleRun),
			app.Input().ID("run-n").Type("number").Min(1).Max(512).Value(p.runN).
				Attr("aria-label", "steps to run").OnChange(p.onRunN),
			app.Span().Text("steps"),
		),
		button("undo", "Undo", "←", steps == 0, p.undo),
		button("reset", "Reset", "r", false, p.reset),
		app.Span().ID("status").Class("status").Text(status),
	)
}

func button(id, label, key string, disabled bool, action func(app.Context)) app.UI {
	return app.Button().ID(id).Disabled(disabled).Title(label+" (key "+key+")").
		OnClick(func(ctx app.Context, e app.Event) { action(ctx) }, app.EventScope(id)).Body(
		app.Text(label), app.Kbd().Text(key),
	)
}

func (p *Playground) onRunN(ctx app.Context, e app.Event) {
	n, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
	if err != nil || n < 1 || n > 512 {
		p.notice = "Run takes a number of steps from 1 to 512."
		return
	}
	p.runN = n
}
