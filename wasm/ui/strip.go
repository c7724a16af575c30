package ui

import (
	"html"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/tokenizer"
)

// Chip is one token of the strip.
type Chip struct {
	ID      int
	Label   string  // the token as every view names it (play.Model.Label)
	Prompt  bool    // from the prompt (prefill), not generated
	Prob    float64 // a generated token's probability when it was chosen
	Forced  bool    // chosen by hand
	Special bool    // a special token (of a chat template's)
}

// Strip shows the context as tokens — the prompt as prefill split it, then
// each generated token tinted by the probability it had, then the next
// slot — and the text so far. Clicking a generated token shows its step.
type Strip struct {
	app.Compo

	Chips    []Chip
	Selected int    // the chip on display; len(Chips) is the next slot
	Next     string // the next slot's label
	Text     string
	Typed    bool   // hand-typed logits: no prompt, no prefill
	Board    *board // the popover of a token reads the latest snapshot
	Do       selecter
}

// selecter shows a step.
type selecter interface{ Select(i int) }

// chipsPerRow is how many chips a ChipRow holds: a step re-renders the
// last row, not the whole strip.
const chipsPerRow = 16

func (s *Strip) Render() app.UI {
	rows := make([]app.UI, 0, len(s.Chips)/chipsPerRow+2)
	prompt := 0 // the prompt's chips, before the first generated one
	for prompt < len(s.Chips) && s.Chips[prompt].Prompt {
		prompt++
	}
	for first := 0; first < len(s.Chips); first += chipsPerRow {
		end := min(first+chipsPerRow, len(s.Chips))
		selected := -1
		if s.Selected >= first && s.Selected < end {
			selected = s.Selected - first
		}
		rows = append(rows, &ChipRow{Chips: s.Chips[first:end:end], FirstStep: first - prompt, Selected: selected})
	}
	chips := rows
	next := app.Button().Class("tok next").DataSet("step", len(s.Chips)-prompt).Title("the next step").Text(s.Next)
	if s.Selected == len(s.Chips) {
		next = next.Class("selected")
	}
	chips = append(chips, next)
	return app.Section().Class("strip").Body(
		// Both boxes stick to their ends as they grow, by CSS alone
		// (column-reverse): no script reads the layout after each step.
		app.Div().ID("tokens").Class("tokens stick").Attr("aria-label", "tokens").Body(
			app.Div().Class("token-list").OnClick(s.onClick).Body(chips...),
		),
		app.Div().Class("text-row").Body(
			app.Span().Class("label").Text("Text"),
			// Not a textarea: go-app never clears a value that becomes "".
			app.Div().ID("text").Class("text stick").TabIndex(0).Attr("role", "textbox").Attr("aria-readonly", "true").
				Attr("aria-label", "the text so far").Body(app.Span().Text(s.Text)),
		),
		s.legend(),
		app.Div().ID(tipID).Class("token-tip").Attr("role", "tooltip").DataSet("rest", tipRest).DataSet("press", tipPress).Hidden(true),
	)
}

// legend explains the chips: the prompt's, where there is one, and the
// generated ones. It is one piece of HTML, which costs the program less
// than a node each.
func (s *Strip) legend() app.UI {
	prompt := ""
	if !s.Typed {
		prompt = `<span class="tok prompt">prompt</span> went through prefill in one pass · `
	}
	return app.Raw(`<p class="legend">` + prompt +
		`<span class="tok gen" style="--p: 0.9">likely</span><span class="tok gen" style="--p: 0.1">unlikely</span>` +
		` generated, tinted by probability · click one to inspect its step; rest the pointer on it, focus it or press it long for its alternatives · ` +
		`<span class="tok">␣</span> space, <span class="tok">↵</span> new line, <span class="tok">∅</span> adds no text</p>`)
}

// onClick shows the step of the chip clicked. The strip handles its
// chips' clicks (see listEvent): a chip has no handler of its own to mount.
func (s *Strip) onClick(ctx app.Context, e app.Event) {
	if step, _, ok := listEvent(e, "tok", "step"); ok {
		s.Do.Select(step)
	}
}

// ChipRow is a run of the strip's chips; a token's step is FirstStep plus
// its place in the row (negative for prompt tokens).
type ChipRow struct {
	app.Compo

	Chips     []Chip
	FirstStep int
	Selected  int // the selected chip's place in the row, or -1
}

func (r *ChipRow) Render() app.UI {
	if r.prompt() {
		// The prompt's chips never change: one piece of HTML mounts a row
		// of them at once, where an element each costs a 300-token prompt
		// a long task.
		var b strings.Builder
		b.WriteString(`<span class="chip-row">`)
		for _, c := range r.Chips {
			class := "tok prompt"
			if c.Special {
				class += " special"
			}
			b.WriteString(`<span class="` + class + `" data-token="` + itoa(c.ID) + `">` + html.EscapeString(c.Label) + `</span>`)
		}
		b.WriteString(`</span>`)
		return app.Raw(b.String())
	}
	chips := make([]app.UI, len(r.Chips))
	for i, c := range r.Chips {
		chips[i] = chip(c, r.FirstStep+i, i == r.Selected)
	}
	return app.Span().Class("chip-row").Body(chips...)
}

// prompt reports whether the row's chips are all the prompt's.
func (r *ChipRow) prompt() bool {
	for _, c := range r.Chips {
		if !c.Prompt {
			return false
		}
	}
	return true
}

// chip is one token of the strip: a prompt token, or a generated one that
// shows its step when clicked. Chips are plain elements, not components:
// a step adds one to the last row, and mounting a component per chip cost
// more than the row's diff.
func chip(c Chip, step int, selected bool) app.UI {
	special := ""
	if c.Special {
		special = " special"
	}
	if c.Prompt {
		return app.Span().Class("tok prompt"+special).DataSet("token", c.ID).Text(c.Label)
	}
	class := "tok gen" + special
	if selected {
		class += " selected"
	}
	if c.Forced {
		class += " forced"
	}
	return app.Button().Class(class).DataSet("step", step).
		Style("--p", strconv.FormatFloat(c.Prob, 'f', 3, 64)).
		Attr("aria-label", "step "+itoa(step+1)+": “"+c.Label+"”, p = "+sig(c.Prob)).
		Text(c.Label)
}

// visible makes white space, control characters and bytes that are not
// UTF-8 in a token visible (package tokenizer's one rule for it).
func visible(piece string) string { return tokenizer.Readable(piece) }

func quote(s string) string { return "“" + visible(s) + "”" }
