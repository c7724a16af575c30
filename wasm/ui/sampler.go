package ui

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/wasm/play"
)

// SamplerCard shows the sampler's settings, as sliders whose effect the
// other cards show while they move, what each stage did at the step on
// display, and the choice: the argmax, or the random draw u on the
// cumulative distribution. The settings are go-app's; the step's part is
// hot: it is painted from the board (samplerStepHTML).
type SamplerCard struct {
	app.Compo

	Board    *board
	Settings sampler.Settings // for the next step
	Field    play.FieldError  // a value refused, shown by its setting
	Note     string           // what the last action did to the settings
	Do       samplerActions
}

// samplerActions are what the sampler card asks of the controller.
type samplerActions interface {
	SetDecoding(mode string)
	SetSettingText(name, text string)
	SetSequence(letters string)
	SetIgnoreEOS(on bool)
	Rerun()
	BeginGesture()
	EndGesture()
	Snapshot() play.Snapshot
}

func (c *SamplerCard) OnMount(ctx app.Context)  { mount(ctx, c.Board, c) }
func (c *SamplerCard) OnUpdate(ctx app.Context) { repaint(ctx, c.Board, c) }
func (c *SamplerCard) OnDismount()              { c.Board.remove(c) }

// sliderEnds are where the settings' sliders end: the useful part of each
// range (a field takes the whole range, as sampler.Params has it).
var sliderEnds = map[string]float64{"temperature": 3, "top_k": 100, "top_p": 1, "min_p": 0.5, "repetition_penalty": 2}

func (c *SamplerCard) Render() app.UI {
	var note app.UI = app.Text("")
	if c.Note != "" {
		note = app.P().ID("sampler-note").Class("hint note").Attr("role", "status").Text(c.Note)
	}
	return app.Section().ID("sampler").Class("card").OnClick(c.onClick).Body(
		app.H3().Text("Sampler"),
		app.P().ID("sampler-context").Class("context"),
		c.settings(),
		note,
		app.Div().ID("sampler-step"),
	)
}

func (c *SamplerCard) paint(s play.Snapshot) {
	if d := shownDetail(s); d != nil {
		setHTML("sampler-context", contextHTML(s.Context(d.Index)))
		setHTML("sampler-step", samplerStepHTML(s, d))
	}
}

// contextHTML is the text the step on display continued, its end.
func contextHTML(text string) string {
	if text == "" {
		return ""
	}
	return `<span class="label">Continuing </span><q>` + esc(tail(text, 160)) + `</q>`
}

// samplerStepHTML is the sampler's part of step d: whether the steps
// taken used other settings, the stages, the choice and the draw.
func samplerStepHTML(s play.Snapshot, d *play.Detail) string {
	var b strings.Builder
	if s.Rerun > 0 {
		b.WriteString(`<p class="rerun">` + esc("These settings apply from the next step; the steps taken keep the settings they were taken with. ") +
			`<button id="rerun">` + esc("Re-run the "+itoa(s.Rerun)+" steps with these settings") + `</button></p>`)
	}
	used := s.Session.Spec.SamplerAt(d.Index)
	if used != s.Settings {
		tag(&b, "p", `id="used-settings" class="hint"`, "This step was taken with "+play.Describe(used)+".")
	}
	if d.Choice == nil {
		return b.String() + unsampledHTML(d)
	}
	stagesHTML(&b, d, used)
	choiceHTML(&b, d, s.Model(), used)
	return b.String()
}

// onClick handles the painted Re-run button.
func (c *SamplerCard) onClick(ctx app.Context, e app.Event) {
	if t := e.Get("target"); t.Truthy() && t.Get("id").String() == "rerun" {
		c.Do.Rerun()
	}
}

// tail is the end of s, at most n runes, marked when cut: a walk back
// from the end, not a copy of the whole text a step.
func tail(s string, n int) string {
	cut := len(s)
	for range n {
		if cut == 0 {
			return s
		}
		_, size := utf8.DecodeLastRuneInString(s[:cut])
		cut -= size
	}
	if cut == 0 {
		return s
	}
	return "…" + s[cut:]
}

func (c *SamplerCard) settings() app.UI {
	mode := play.Decoding(c.Settings)
	fields := []app.UI{app.Label().Class("field").Body(
		app.Span().Text("decoding"),
		app.Select().ID("decoding").OnChange(c.onDecoding).Body(
			option(play.Greedy, "greedy (argmax)", mode == play.Greedy),
			option(play.Sample, "sample", mode == play.Sample),
			option(play.RunC, "sample like llama2.c run.c", mode == play.RunC),
			option(play.LlamaCpp, "llama.cpp", mode == play.LlamaCpp),
			option(play.HF, "Hugging Face", mode == play.HF),
		),
	)}
	if mode != play.Greedy {
		for _, f := range sampler.Params {
			if f.ChainOnly && mode == play.RunC {
				continue
			}
			fields = append(fields, c.field(f))
		}
	}
	if mode == play.LlamaCpp {
		// llama.cpp's own stages: mirostat in place of the chain, and DRY.
		for _, f := range sampler.LlamaParams {
			fields = append(fields, c.field(f))
		}
		fields = append(fields, app.Label().Class("field").Body(
			app.Span().Text("stages"),
			app.Div().Class("setting-row").Body(
				app.Input().ID("set-sequence").Type("text").Class("setting").Value(c.Settings.Sequence).
					Placeholder("edskypmxt").Attr("autocomplete", "off").Attr("spellcheck", "false").
					Attr("aria-label", "llama.cpp's stages, one letter each").
					Title("llama.cpp's --sampling-seq: e penalties, d DRY, s top-n-sigma, k top-k, y typical, p top-p, m min-p, x XTC, t temperature; empty for its default order").
					OnChange(c.onSequence),
				c.fieldError(play.FieldSequence),
			),
		))
	}
	ignore := app.Input().ID("set-ignore_eos").Type("checkbox").OnChange(c.onIgnoreEOS)
	if c.Settings.IgnoreEOS {
		ignore = ignore.Checked(true)
	}
	fields = append(fields, app.Label().Class("check").Title("llama.cpp's --ignore-eos: the tokens that end a text are masked (−∞) at every step from the next one").Body(
		ignore, app.Text(" keep going past the end of text"), c.fieldError(play.FieldIgnoreEOS)))
	return app.Div().Class("settings").Body(fields...)
}

// field is setting f's number field, with a slider where it has one, and
// the reason a value was refused.
func (c *SamplerCard) field(f sampler.Param) app.UI {
	v := f.Get(c.Settings)
	input := []app.UI{
		app.Input().ID("set-"+f.Name).Type("text").Attr("inputmode", "decimal").Class("setting").
			Value(strconv.FormatFloat(v, 'f', -1, 64)).Attr("aria-label", f.Label).Title(f.Doc).
			OnChange(c.onSetting(f), app.EventScope(f.Name)),
	}
	if end, ok := sliderEnds[f.Name]; ok {
		input = append(input, app.Input().ID("slide-"+f.Name).Type("range").TabIndex(-1).
			Min(f.Min).Max(end).Step(f.Step).Value(math.Min(v, end)).
			Attr("aria-label", f.Label+" slider").
			On("pointerdown", c.hold).OnChange(c.release).
			OnInput(c.onSetting(f), app.EventScope(f.Name)))
	}
	input = append(input, c.fieldError(f.Name))
	return app.Label().Class("field").Body(
		app.Span().Text(f.Label),
		app.Div().Class("setting-row").Body(input...),
	)
}

// fieldError is the reason a value of the field was refused, by it.
func (c *SamplerCard) fieldError(field string) app.UI {
	if c.Field.Field != field {
		return app.Text("")
	}
	return app.Span().Class("field-error").Attr("role", "alert").Text(c.Field.Message + " The last good value is back.")
}

func (c *SamplerCard) hold(ctx app.Context, e app.Event)    { c.Do.BeginGesture() }
func (c *SamplerCard) release(ctx app.Context, e app.Event) { c.Do.EndGesture() }

func (c *SamplerCard) onIgnoreEOS(ctx app.Context, e app.Event) {
	c.Do.SetIgnoreEOS(ctx.JSSrc().Get("checked").Bool())
}

func (c *SamplerCard) onDecoding(ctx app.Context, e app.Event) {
	c.Do.SetDecoding(ctx.JSSrc().Get("value").String())
	_ = focusPlayground()
}

func (c *SamplerCard) onSetting(f sampler.Param) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		c.Do.SetSettingText(f.Name, ctx.JSSrc().Get("value").String())
		if s := c.Do.Snapshot(); s.FieldError(f.Name) != "" {
			ctx.JSSrc().Set("value", strconv.FormatFloat(f.Get(s.Settings), 'f', -1, 64))
		}
	}
}

// onSequence runs llama.cpp's stages in the order the letters give.
func (c *SamplerCard) onSequence(ctx app.Context, e app.Event) {
	c.Do.SetSequence(ctx.JSSrc().Get("value").String())
	if s := c.Do.Snapshot(); s.FieldError(play.FieldSequence) != "" {
		ctx.JSSrc().Set("value", s.Settings.Sequence)
	}
}

// stagesHTML lists what each stage of the sampler did at step d.
func stagesHTML(b *strings.Builder, d *play.Detail, used sampler.Settings) {
	if len(d.Choice.Stages) == 0 {
		return
	}
	b.WriteString(`<ol id="stages" class="stages">`)
	prev := d.Vocab
	for _, st := range d.Choice.Stages {
		var what string
		switch {
		case st.Name == sampler.StageRepetitionPenalty:
			what = "changed the logits of " + itoa(st.Affected) + " tokens already in the context"
		case st.Name == sampler.StageTemperature:
			what = "divided the logits by T = " + sig(used.Temperature) + " before the softmax"
		case st.Affected > 0:
			what = "kept " + itoa(st.Survivors) + " of " + itoa(prev) + " tokens, removing " + itoa(st.Affected) + " that held " + sig(st.RemovedMass) + " of the probability"
		default:
			what = "removed nothing"
		}
		if st.Survivors > 0 {
			prev = st.Survivors
		}
		b.WriteString("<li>")
		tag(b, "code", "", stageLabel(st.Name))
		b.WriteString(esc(" "+what) + "</li>")
	}
	b.WriteString("</ol>")
}

// choiceHTML says how step d's token was chosen, and draws the draw.
func choiceHTML(b *strings.Builder, d *play.Detail, m *play.Model, used sampler.Settings) {
	step, ch := d.Step, d.Choice
	p := sig(step.Prob)
	b.WriteString(`<div class="choice"><p>`)
	switch {
	case step.Forced:
		b.WriteString(esc("Chosen by you: "))
		tag(b, "strong", `id="choice"`, m.Label(step.Token))
		b.WriteString(esc(" (p = " + p + "); the sampler had chosen " + quote(m.Label(ch.Token)) + "."))
	case ch.Greedy:
		b.WriteString(esc("Greedy decoding takes the most probable token: "))
		tag(b, "strong", `id="choice"`, m.Label(step.Token))
		b.WriteString(esc(" (p = " + p + ")."))
	default:
		b.WriteString("Drew ")
		tag(b, "strong", `id="draw-u"`, "u = "+sig(ch.Draw.U))
		b.WriteString(esc(" and walked the cumulative distribution to "))
		tag(b, "strong", `id="choice"`, m.Label(step.Token))
		b.WriteString(esc(" (p = " + p + ")."))
	}
	b.WriteString("</p>")
	drawHTML(b, d, m, used)
	b.WriteString("</div>")
}

// drawHTML shows the cumulative distribution of the candidates as one bar
// of segments, with a mark where the draw landed: the candidates before
// the chosen one, up to maxSegments, the chosen one always, and the rest
// as one segment.
func drawHTML(b *strings.Builder, det *play.Detail, m *play.Model, used sampler.Settings) {
	d, seg := det.Choice.Draw, det.Segments
	if d == nil || seg == nil || d.Total <= 0 {
		return
	}
	b.WriteString(`<div class="draw"><div class="cdf">`)
	segment := func(i, id int, lo, hi float64) {
		class := "seg"
		if i == d.Index {
			class += " hit"
		}
		b.WriteString(`<span class="` + class + `" style="width:` + pct((hi-lo)/d.Total) + `" title="` +
			esc(m.Label(id)+": ["+sig(lo)+", "+sig(hi)+")") + `">` + esc(m.Label(id)) + `</span>`)
	}
	rest := func(from, to int, lo, hi float64) {
		if to > from {
			b.WriteString(`<span class="seg rest" style="width:` + pct((hi-lo)/d.Total) + `" title="` + itoa(to-from) + ` more tokens"></span>`)
		}
	}
	prev := 0.0
	shown := len(seg.Order)
	for i, id := range seg.Order {
		segment(i, id, prev, seg.CDF[i])
		prev = seg.CDF[i]
	}
	if d.Index >= shown { // the chosen token, beyond the segments drawn one by one
		rest(shown, d.Index, prev, seg.Before)
		segment(d.Index, seg.Chosen, seg.Before, seg.Through)
		prev = seg.Through
		shown = d.Index + 1
	}
	rest(shown, seg.Candidates, prev, d.Total)
	b.WriteString(`<span class="mark" style="left:` + pct(d.Target/d.Total) + `"></span></div>`)
	chosen := quote(m.Label(seg.Chosen))
	why := "The cumulative distribution runs over the candidates, most probable first"
	switch {
	case used.Mode == sampler.LlamaCpp:
		why = "llama.cpp's dist walks its candidates in the order its last stage left them, summing expf(ℓ − max) unnormalised, and scales u by the sum"
	case det.Choice.Note != "":
		why = "Hugging Face's chain, walked in token-id order: " + det.Choice.Note
	case d.Target != d.U:
		why += "; run.c does not renormalise the survivors of top-p but scales u by their mass"
	case det.Filtered:
		why += ", with the probabilities renormalised after the filters: " + chosen + "'s p = " + sig(det.Choice.Prob) +
			" became " + sig(d.Hi-d.Lo) + ", the width of its interval"
	}
	target := "u = " + sig(d.U)
	if d.Target != d.U {
		target = "u × " + sig(d.Total) + " = " + sig(d.Target)
	}
	tag(b, "p", `id="draw-interval" class="hint"`, target+" falls in ["+sig(d.Lo)+", "+sig(d.Hi)+"), the interval of "+chosen+". "+why+".")
	b.WriteString("</div>")
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 3, 64) + "%" }

func itoa(n int) string { return strconv.Itoa(n) }

// capitalize makes the first letter of a message upper case.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
