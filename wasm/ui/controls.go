package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// Controls are the step buttons, with their keyboard shortcuts.
type Controls struct {
	app.Compo

	Steps            int
	CanStep, Running bool
	CanUndo, CanRedo bool
	RunN             int
	Status           string // how many steps, and why no step can follow
	RunError         string // a bad number of steps, shown by its field
	Do               controlActions
}

// controlActions are what the step buttons ask of the controller.
type controlActions interface {
	Step()
	Run()
	Undo()
	Redo()
	Reset()
	SetRunSteps(text string)
	Snapshot() play.Snapshot
}

func (c *Controls) Render() app.UI {
	run := "Run"
	if c.Running {
		run = "Stop"
	}
	return app.Nav().Class("controls").Attr("aria-label", "decoding controls").Body(
		c.button("step", "Step", "→", !c.CanStep, controlActions.Step),
		app.Span().Class("run").Body(
			c.button("run", run, "g", !c.CanStep && !c.Running, controlActions.Run),
			app.Input().ID("run-n").Type("number").Min(1).Max(play.MaxRun).Value(c.RunN).
				Attr("aria-label", "steps to run").Attr("aria-describedby", "run-error").OnChange(c.onRunN),
			app.Span().Text("steps"),
			app.If(c.RunError != "", func() app.UI {
				return app.Span().ID("run-error").Class("field-error").Attr("role", "alert").Text(c.RunError)
			}),
		),
		c.button("undo", "Undo", "Ctrl+Z", !c.CanUndo, controlActions.Undo),
		c.button("redo", "Redo", "Shift+Ctrl+Z", !c.CanRedo, controlActions.Redo),
		c.button("reset", "Reset", "r", false, controlActions.Reset),
		app.Span().ID("status").Class("status").Attr("aria-live", "polite").Text(c.Status),
	)
}

func (c *Controls) button(id, label, key string, disabled bool, action func(controlActions)) app.UI {
	return disabledIf(app.Button().ID(id), disabled).Title(label+" ("+key+")").
		OnClick(func(ctx app.Context, e app.Event) {
			if c.Do != nil {
				action(c.Do)
			}
		}, app.EventScope(id)).Body(
		app.Text(label), app.Kbd().Text(key),
	)
}

func (c *Controls) onRunN(ctx app.Context, e app.Event) {
	c.Do.SetRunSteps(ctx.JSSrc().Get("value").String())
	if s := c.Do.Snapshot(); s.FieldError(play.FieldRun) != "" {
		ctx.JSSrc().Set("value", s.RunSteps) // the last good value
	}
}
