package ui

import (
	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// Controls are the step buttons, with their keyboard shortcuts. Which
// buttons work and the status are painted from the board as soon as the
// session changes, so that Undo works the moment a step is shown; go-app
// renders the same at its next frame.
type Controls struct {
	app.Compo

	Board            *board
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

func (c *Controls) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *Controls) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *Controls) OnDismount()              { c.Board.remove(c) }

func (c *Controls) paint(s play.Snapshot) {
	setDisabled("step", !s.CanStep())
	setDisabled("run", !s.CanStep() && !s.Running)
	setHTML("run-label", runLabel(s.Running))
	setDisabled("undo", !s.CanUndo)
	setDisabled("redo", !s.CanRedo)
	setHTML("status", esc(s.Status()))
}

func runLabel(running bool) string {
	if running {
		return "Stop"
	}
	return "Run"
}

func (c *Controls) Render() app.UI {
	return app.Nav().Class("controls").Attr("aria-label", "decoding controls").Body(
		c.button("step", "Step", "→", !c.CanStep, controlActions.Step),
		app.Span().Class("run").Body(
			c.button("run", runLabel(c.Running), "g", !c.CanStep && !c.Running, controlActions.Run),
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
		app.Span().ID(id+"-label").Text(label), app.Kbd().Text(key),
	)
}

func (c *Controls) onRunN(ctx app.Context, e app.Event) {
	c.Do.SetRunSteps(ctx.JSSrc().Get("value").String())
	if s := c.Do.Snapshot(); s.FieldError(play.FieldRun) != "" {
		ctx.JSSrc().Set("value", s.RunSteps) // the last good value
	}
}
