package ui

import (
	"fmt"
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// renderStrip shows the context as tokens: the prompt as prefill split it,
// then each generated token tinted by the probability it had, then the
// pending slot. Clicking a generated token shows its step.
func (p *Playground) renderStrip() app.UI {
	t := p.sess.Trace()
	tokens := make([]app.UI, 0, len(t.Prompt)+len(t.Steps)+1)
	for _, tok := range t.Prompt {
		tokens = append(tokens, app.Span().Class("tok prompt").Title(fmt.Sprintf("prompt token %d %q", tok.ID, tok.Text)).
			Text(visible(tok.Piece)))
	}
	for i, st := range t.Steps {
		prob := st.Prob
		class := "tok gen"
		if i == p.sel {
			class += " selected"
		}
		if st.Forced {
			class += " forced"
		}
		tokens = append(tokens, app.Button().Class(class).
			DataSet("step", i).
			Style("--p", strconv.FormatFloat(prob, 'f', 3, 64)).
			Title(fmt.Sprintf("step %d: %q, p = %s", i+1, st.Piece, sig(prob))).
			OnClick(p.selectStep(i), app.EventScope("step", i)).
			Text(visible(st.Piece)))
	}
	next := app.Button().Class("tok next").Title("the next step").OnClick(p.selectStep(len(t.Steps)), app.EventScope("step", len(t.Steps)))
	if p.sel == len(t.Steps) {
		next = next.Class("selected")
	}
	if p.next != nil {
		next = next.Text(visible(p.next.Piece) + "?")
	} else {
		next = next.Text("■")
	}
	tokens = append(tokens, next)
	return app.Section().Class("strip").Body(
		app.Div().ID("tokens").Class("tokens").Attr("aria-label", "tokens").Body(tokens...),
		app.Div().Class("text-row").Body(
			app.Span().Class("label").Text("Text"),
			app.Textarea().ID("text").ReadOnly(true).Rows(2).Text(t.Text),
		),
		app.P().Class("legend").Body(
			app.Span().Class("tok prompt").Text("prompt"), app.Text(" prefill · "),
			app.Span().Class("tok gen").Style("--p", "0.9").Text("likely"),
			app.Span().Class("tok gen").Style("--p", "0.1").Text("unlikely"),
			app.Text(" generated (colour = probability) · click a token to inspect its step"),
		),
	)
}

func (p *Playground) selectStep(i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { p.sel = i }
}

// visible makes white space and control characters in a token visible.
func visible(piece string) string {
	if piece == "" {
		return "∅"
	}
	out := make([]rune, 0, len(piece))
	for _, r := range piece {
		switch {
		case r == ' ':
			out = append(out, '␣')
		case r == '\n':
			out = append(out, '↵')
		case r == '\t':
			out = append(out, '⇥')
		case r < 0x20 || r == 0xFFFD:
			out = append(out, []rune(fmt.Sprintf("<%02X>", r))...)
		default:
			out = append(out, r)
		}
	}
	return string(out)
}
