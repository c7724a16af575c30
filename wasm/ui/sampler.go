package ui

import (
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// SamplerCard shows the sampler's settings, as sliders whose effect the
// other cards show while they move, what each stage did at this step, and
// the choice: the argmax, or the random draw u on the cumulative
// distribution.
type SamplerCard struct {
	app.Compo

	Settings sampler.Settings // for the next step
	Used     sampler.Settings // what the step on display used
	Rerun    int              // steps taken with other settings than Settings, which Rerun would take again
	D        *session.Detail
	Model    *play.Model
	Context  string          // the text the step on display continued
	Field    play.FieldError // a value refused, shown by its setting
	Note     string          // what the last action did to the settings
	Do       samplerActions
}

// samplerActions are what the sampler card asks of the controller.
type samplerActions interface {
	SetDecoding(mode string)
	SetSettingText(name, text string)
	SetSequence(letters string)
	Rerun()
	BeginGesture()
	EndGesture()
	Snapshot() play.Snapshot
}

// sliderEnds are where the settings' sliders end: the useful part of each
// range (a field takes the whole range, as sampler.Params has it).
var sliderEnds = map[string]float64{"temperature": 3, "top_k": 100, "top_p": 1, "min_p": 0.5, "repetition_penalty": 2}

func (c *SamplerCard) Render() app.UI {
	var context app.UI = app.Text("")
	if c.Context != "" {
		context = app.P().ID("sampler-context").Class("context").Body(
			app.Span().Class("label").Text("Continuing "), app.Q().Text(tail(c.Context, 160)))
	}
	var rerun app.UI = app.Text("")
	if c.Rerun > 0 {
		rerun = app.P().Class("rerun").Body(
			app.Text("These settings apply from the next step; the steps taken keep the settings they were taken with. "),
			app.Button().ID("rerun").Text("Re-run the "+itoa(c.Rerun)+" steps with these settings").OnClick(c.onRerun),
		)
	}
	var used app.UI = app.Text("")
	if c.Used != c.Settings {
		used = app.P().ID("used-settings").Class("hint").Text("This step was taken with " + play.Describe(c.Used) + ".")
	}
	var note app.UI = app.Text("")
	if c.Note != "" {
		note = app.P().ID("sampler-note").Class("hint note").Attr("role", "status").Text(c.Note)
	}
	return card("sampler", "Sampler", "",
		context,
		c.settings(),
		note,
		rerun,
		used,
		c.stages(),
		c.choice(),
	)
}

// tail is the end of s, at most n runes, marked when cut.
func tail(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n:])
}

func (c *SamplerCard) settings() app.UI {
	mode := play.Decoding(c.Settings)
	fields := []app.UI{app.Label().Class("field").Body(
		app.Span().Text("decoding"),
		app.Select().ID("decoding").OnChange(c.onDecoding).Body(
			option(play.Greedy, "greedy (argmax)", mode == play.Greedy),
			option(play.Sample, "sample", mode == play.Sample),
			option(sampler.RunC, "sample like llama2.c run.c", mode == sampler.RunC),
			option(sampler.LlamaCpp, "llama.cpp", mode == sampler.LlamaCpp),
			option(sampler.HF, "Hugging Face", mode == sampler.HF),
		),
	)}
	if mode != play.Greedy {
		for _, f := range sampler.Params {
			if f.ChainOnly && mode == sampler.RunC {
				continue
			}
			fields = append(fields, c.field(f))
		}
	}
	if mode == sampler.LlamaCpp {
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

func (c *SamplerCard) onRerun(ctx app.Context, e app.Event) { c.Do.Rerun() }

func (c *SamplerCard) stages() app.UI {
	var items []app.UI
	prev := len(c.D.Choice.Softmax.Probs)
	for _, st := range c.D.Choice.Stages {
		var what string
		switch {
		case st.Name == "repetition_penalty":
			what = "changed the logits of " + itoa(st.Affected) + " tokens already in the context"
		case st.Name == "temperature":
			what = "divided the logits by T = " + sig(c.Used.Temperature) + " before the softmax"
		case st.Affected > 0:
			what = "kept " + itoa(st.Survivors) + " of " + itoa(prev) + " tokens, removing " + itoa(st.Affected) + " that held " + sig(st.RemovedMass) + " of the probability"
		default:
			what = "removed nothing"
		}
		if st.Survivors > 0 {
			prev = st.Survivors
		}
		items = append(items, app.Li().Body(app.Code().Text(stageLabel(st.Name)), app.Text(" "+what)))
	}
	if len(items) == 0 {
		return app.Text("")
	}
	return app.Ol().ID("stages").Class("stages").Body(items...)
}

func (c *SamplerCard) choice() app.UI {
	step, ch := c.D.Step, c.D.Choice
	name := c.Model.Label
	p := sig(step.Prob)
	var summary app.UI
	switch {
	case step.Forced:
		summary = app.P().Body(app.Text("Chosen by you: "), app.Strong().ID("choice").Text(name(step.Token)),
			app.Text(" (p = "+p+"); the sampler had chosen "+quote(c.Model.Label(ch.Token))+"."))
	case ch.Greedy:
		summary = app.P().Body(app.Text("Greedy decoding takes the most probable token: "),
			app.Strong().ID("choice").Text(name(step.Token)), app.Text(" (p = "+p+")."))
	default:
		summary = app.P().Body(app.Text("Drew "), app.Strong().ID("draw-u").Text("u = "+sig(ch.Draw.U)),
			app.Text(" and walked the cumulative distribution to "), app.Strong().ID("choice").Text(name(step.Token)),
			app.Text(" (p = "+p+")."))
	}
	return app.Div().Class("choice").Body(summary, c.draw())
}

// draw shows the cumulative distribution of the candidates as one bar of
// segments, with a mark where the draw landed.
func (c *SamplerCard) draw() app.UI {
	d := c.D.Choice.Draw
	if d == nil || len(d.CDF) == 0 {
		return app.Text("")
	}
	const maxSegments = 40
	segs := []app.UI{}
	prev := 0.0
	for i, id := range d.Order {
		if i == maxSegments {
			segs = append(segs, app.Span().Class("seg rest").Style("width", pct((d.Total-prev)/d.Total)).Title(itoa(len(d.Order)-i)+" more tokens"))
			break
		}
		class := "seg"
		if i == d.Index {
			class += " hit"
		}
		segs = append(segs, app.Span().Class(class).Style("width", pct((d.CDF[i]-prev)/d.Total)).
			Title(c.Model.Label(id)+": ["+sig(prev)+", "+sig(d.CDF[i])+")").Text(c.Model.Label(id)))
		prev = d.CDF[i]
	}
	chosen := quote(c.Model.Label(d.Order[d.Index]))
	why := "The cumulative distribution runs over the candidates, most probable first"
	switch {
	case c.Used.Mode == sampler.LlamaCpp:
		why = "llama.cpp's dist walks its candidates in the order its last stage left them, summing expf(ℓ − max) unnormalised, and scales u by the sum"
	case c.D.Choice.Note != "":
		why = "Hugging Face's chain, walked in token-id order: " + c.D.Choice.Note
	case d.Target != d.U:
		why += "; run.c does not renormalise the survivors of top-p but scales u by their mass"
	case finalProbs(c.D.Choice) != nil:
		why += ", with the probabilities renormalised after the filters: " + chosen + "'s p = " + sig(c.D.Choice.Prob) +
			" became " + sig(d.Hi-d.Lo) + ", the width of its interval"
	}
	target := "u = " + sig(d.U)
	if d.Target != d.U {
		target = "u × " + sig(d.Total) + " = " + sig(d.Target)
	}
	return app.Div().Class("draw").Body(
		app.Div().Class("cdf").Body(append(segs, app.Span().Class("mark").Style("left", pct(d.Target/d.Total)))...),
		app.P().ID("draw-interval").Class("hint").Text(target+" falls in ["+sig(d.Lo)+", "+sig(d.Hi)+"), the interval of "+chosen+". "+why+"."),
	)
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
