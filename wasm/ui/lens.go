package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// lensCard is the logit lens card's input: the lens of the step on
// display, which the detail carries while the card is open.
func lensCard(s play.Snapshot, d *play.Detail, do lensActions) app.UI {
	if s.Model().Typed {
		return app.Text("")
	}
	return &LensCard{Open: s.Page.Lens, Lens: d.Lens, Chosen: d.Step.Token, Index: d.Index, Model: s.Model(), Do: do}
}

// lensActions open and close the lens card.
type lensActions interface{ SetLensOpen(open bool) }

// LensCard is the logit lens as a grid: a row per layer, from the first to
// the last, its most probable tokens left to right, each cell shaded by its
// probability; the token the step chose is marked wherever it appears.
type LensCard struct {
	app.Compo

	Open   bool
	Lens   []session.LensLayer
	Chosen int // the token the step chose (or would choose)
	Index  int // the step on display
	Model  *play.Model
	Do     lensActions
}

func (c *LensCard) Render() app.UI {
	body := []app.UI{app.Summary().Body(app.H3().Text("Logit lens: what each layer would predict"))}
	if c.Open && c.Lens != nil {
		head := []app.UI{app.Th().Text("after layer")}
		for j := range len(c.Lens[0].Top) {
			head = append(head, app.Th().Class(lensColumn(j)).Text("#"+itoa(j+1)))
		}
		rows := []app.UI{app.Tr().Body(head...)}
		for _, layer := range c.Lens {
			cells := []app.UI{app.Th().Text(itoa(layer.Layer))}
			for j, tok := range layer.Top {
				cell := app.Td().Class("lens").Class(lensColumn(j)).DataSet("token", tok.Token).
					Style("--p", strconv.FormatFloat(tok.P, 'f', 3, 64)).
					Title("token "+itoa(tok.Token)+", p = "+sig(tok.P)).
					Body(app.Span().Class("piece").Text(c.Model.Label(tok.Token)), app.Span().Class("p").Text(sig(tok.P)))
				if tok.Token == c.Chosen {
					cell = cell.Class("chosen")
				}
				cells = append(cells, cell)
			}
			rows = append(rows, app.Tr().DataSet("layer", layer.Layer).Body(cells...))
		}
		body = append(body,
			app.P().Class("hint").Text("The residual stream after each layer, put through the model's final RMSNorm and classifier "+
				"and a softmax at temperature 1 (no sampler settings, no edits): the tokens the model would predict if it stopped there. "+
				"The last row is the model's own output. The step's token, "+quote(c.Model.Label(c.Chosen))+", is outlined."),
			folds(allColumns()),
			app.Div().Class("scroll").Body(app.Table().ID("lens-grid").Class("num lens").DataSet("step", c.Index).Body(rows...)),
		)
	}
	details := app.Details().ID("lens").Class("card lens-card").OnToggle(c.onToggle)
	if c.Open {
		details = details.Open(true) // go-app would write open="false", which opens it
	}
	return details.Body(body...)
}

func (c *LensCard) onToggle(ctx app.Context, e app.Event) {
	if open := ctx.JSSrc().Get("open").Bool(); open != c.Open {
		c.Do.SetLensOpen(open)
	}
}

// lensShown is how many of a layer's most probable tokens a narrow card
// shows; the others fold away.
const lensShown = 2

// lensColumn is the class of the lens's j-th column of tokens.
func lensColumn(j int) string {
	if j < lensShown {
		return ""
	}
	return "sec"
}
