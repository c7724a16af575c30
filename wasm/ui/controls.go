package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// maxRun is the most steps one Run takes.
const maxRun = 4096

// Controls are the step buttons, with their keyboard shortcuts.
type Controls struct {
	app.Compo

	Steps            int
	CanStep, Running bool
	CanUndo, CanRedo bool
	RunN             int
	Stopped          string // why no step can follow, or ""
	Page             *Playground

	runError string // a bad number of steps, shown by its field
}

func (c *Controls) Render() app.UI {
	run := "Run"
	if c.Running {
		run = "Stop"
	}
	status := strconv.Itoa(c.Steps) + " steps"
	if c.Steps == 1 {
		status = "1 step"
	}
	if c.Stopped != "" {
		status += " · " + c.Stopped
	}
	return app.Nav().Class("controls").Attr("aria-label", "decoding controls").Body(
		c.button("step", "Step", "→", !c.CanStep, func(ctx app.Context) { c.Page.step() }),
		app.Span().Class("run").Body(
			c.button("run", run, "g", !c.CanStep && !c.Running, c.Page.toggleRun),
			app.Input().ID("run-n").Type("number").Min(1).Max(maxRun).Value(c.RunN).
				Attr("aria-label", "steps to run").Attr("aria-describedby", "run-error").OnChange(c.onRunN),
			app.Span().Text("steps"),
			app.If(c.runError != "", func() app.UI {
				return app.Span().ID("run-error").Class("field-error").Attr("role", "alert").Text(c.runError)
			}),
		),
		c.button("undo", "Undo", "←", !c.CanUndo, func(ctx app.Context) { c.Page.undoAction() }),
		c.button("redo", "Redo", "y", !c.CanRedo, func(ctx app.Context) { c.Page.redoAction() }),
		c.button("reset", "Reset", "r", false, func(ctx app.Context) { c.Page.reset() }),
		app.Span().ID("status").Class("status").Attr("aria-live", "polite").Text(status),
	)
}

func (c *Controls) button(id, label, key string, disabled bool, action func(app.Context)) app.UI {
	return disabledIf(app.Button().ID(id), disabled).Title(label+" (key "+key+")").
		OnClick(func(ctx app.Context, e app.Event) { action(ctx) }, app.EventScope(id)).Body(
		app.Text(label), app.Kbd().Text(key),
	)
}

func (c *Controls) onRunN(ctx app.Context, e app.Event) {
	n, err := strconv.Atoi(ctx.JSSrc().Get("value").String())
	if err != nil || n < 1 || n > maxRun {
		c.runError = "Run takes a whole number of steps from 1 to " + strconv.Itoa(maxRun) + "."
		ctx.JSSrc().Set("value", c.RunN) // the last good value
		return
	}
	c.runError = ""
	c.Page.setRunN(n)
}
