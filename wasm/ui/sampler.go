package ui

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
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
	Vocab    *Vocab
	Context  string // the text being continued
	Page     *Playground

	errs map[string]string // a bad value typed into a setting, shown by it
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
		used = app.P().ID("used-settings").Class("hint").Text("This step was taken with " + describe(c.Used) + ".")
	}
	return card("sampler", "Sampler", "",
		context,
		c.settings(),
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
	s := c.Settings
	mode := "sample"
	switch {
	case s.Runtime():
		mode = s.Mode // llama.cpp's greedy is its own temperature 0, set in the field
	case s.Temperature == 0:
		mode = "greedy"
	case s.Mode == sampler.RunC:
		mode = "runc"
	}
	fields := []app.UI{app.Label().Class("field").Body(
		app.Span().Text("decoding"),
		app.Select().ID("decoding").OnChange(c.onDecoding).Body(
			option("greedy", "greedy (argmax)", mode == "greedy"),
			option("sample", "sample", mode == "sample"),
			option("runc", "sample like llama2.c run.c", mode == "runc"),
			option(sampler.LlamaCpp, "llama.cpp", mode == sampler.LlamaCpp),
			option(sampler.HF, "Hugging Face", mode == sampler.HF),
		),
	)}
	if mode != "greedy" {
		for _, f := range sampler.Params {
			if f.ChainOnly && mode == "runc" {
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
				app.If(c.errs["sequence"] != "", func() app.UI {
					return app.Span().Class("field-error").Attr("role", "alert").Text(c.errs["sequence"])
				}),
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
	if msg := c.errs[f.Name]; msg != "" {
		input = append(input, app.Span().Class("field-error").Attr("role", "alert").Text(msg))
	}
	return app.Label().Class("field").Body(
		app.Span().Text(f.Label),
		app.Div().Class("setting-row").Body(input...),
	)
}

func (c *SamplerCard) hold(ctx app.Context, e app.Event)    { c.Page.beginGesture() }
func (c *SamplerCard) release(ctx app.Context, e app.Event) { c.Page.endGesture() }

func (c *SamplerCard) onDecoding(ctx app.Context, e app.Event) {
	s := c.Page.nextSettings() // not c.Settings, which may not show the last event yet
	switch ctx.JSSrc().Get("value").String() {
	case "greedy":
		if s.Runtime() {
			s = s.InMode(sampler.Chain) // Hugging Face has no temperature 0; llama.cpp's is its own field
		}
		s.Temperature = 0
	case "sample":
		s = s.InMode(sampler.Chain)
		if s.Temperature == 0 {
			s.Temperature = 1
		}
	case "runc":
		s = sampler.Settings{Mode: sampler.RunC, Temperature: max(s.Temperature, 1), TopP: s.TopP, Seed: s.Seed}
	case sampler.LlamaCpp, sampler.HF:
		// The runtime's defaults, shown in the fields; a seed beyond
		// llama.cpp's 32 bits is refused with its reason.
		d, err := compare.ChainSettings(ctx.JSSrc().Get("value").String(), s, nil)
		if err != nil {
			c.Page.notify(err)
			return
		}
		s = d
	}
	c.Page.notify(c.Page.setSampler(s))
	_ = focusPlayground()
}

func (c *SamplerCard) onSetting(f sampler.Param) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		v, err := parseNumber(ctx.JSSrc().Get("value").String(), math.MaxFloat64, false)
		if _, huge := err.(errTooLarge); huge || err == nil && f.Check(v) != nil {
			err = errors.New("want " + f.Range())
		}
		if err == nil {
			s := c.Page.nextSettings() // not c.Settings, which may not show the last event yet
			f.Set(&s, v)
			// A llama.cpp stage switched on takes its defaults, as in a link.
			compare.StageDefaults(&s, func(p string) bool { return p == f.Name })
			err = c.Page.setSampler(s)
		}
		if c.errs == nil {
			c.errs = map[string]string{}
		}
		delete(c.errs, f.Name)
		if err != nil {
			c.errs[f.Name] = capitalize(err.Error()) + "; the last good value is back."
			ctx.JSSrc().Set("value", strconv.FormatFloat(f.Get(c.Page.nextSettings()), 'f', -1, 64))
		}
	}
}

// onSequence runs llama.cpp's stages in the order the letters give.
func (c *SamplerCard) onSequence(ctx app.Context, e app.Event) {
	s := c.Page.nextSettings() // not c.Settings, which may not show the last event yet
	s.Sequence = strings.TrimSpace(ctx.JSSrc().Get("value").String())
	err := c.Page.setSampler(s)
	if c.errs == nil {
		c.errs = map[string]string{}
	}
	delete(c.errs, "sequence")
	if err != nil {
		c.errs["sequence"] = capitalize(err.Error()) + "; the last good letters are back."
		ctx.JSSrc().Set("value", c.Page.nextSettings().Sequence)
	}
}

func (c *SamplerCard) onRerun(ctx app.Context, e app.Event) { c.Page.rerun() }

// nextSettings are the settings the next step will use: what a handler
// changes, rather than its card's copy, which go-app updates only when it
// next draws, after a quick second event may have come.
func (p *Playground) nextSettings() sampler.Settings {
	return p.sess.Sampler(len(p.sess.Trace().Steps))
}

// setSampler changes the sampler's settings from the next step on: the
// steps taken keep theirs.
func (p *Playground) setSampler(s sampler.Settings) error {
	return p.act(func(sess *session.Session) error { return sess.SetSampler(s) })
}

// rerun takes every step again with the settings of the next one.
func (p *Playground) rerun() { p.notify(p.act((*session.Session).Rerun)) }

// describe says what settings are, briefly.
func describe(s sampler.Settings) string {
	if s.Temperature == 0 && !s.Runtime() {
		return "greedy decoding"
	}
	var parts []string
	switch s.Mode {
	case sampler.RunC:
		parts = append(parts, "run.c's sampling")
	case sampler.LlamaCpp:
		parts = append(parts, "llama.cpp's chain")
	case sampler.HF:
		parts = append(parts, "Hugging Face's chain")
	}
	for _, p := range sampler.Params {
		if v := p.Get(s); !p.IsOff(v) && !(p.ChainOnly && s.Mode == sampler.RunC) {
			parts = append(parts, p.Label+" "+sampler.Readable(v))
		}
	}
	return strings.Join(parts, ", ")
}

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
	name := c.Vocab.Name
	p := sig(step.Prob)
	var summary app.UI
	switch {
	case step.Forced:
		summary = app.P().Body(app.Text("Chosen by you: "), app.Strong().ID("choice").Text(name(step.Token)),
			app.Text(" (p = "+p+"); the sampler had chosen "+quote(c.Vocab.Names[ch.Token])+"."))
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
			Title(c.Vocab.Names[id]+": ["+sig(prev)+", "+sig(d.CDF[i])+")").Text(c.Vocab.Names[id]))
		prev = d.CDF[i]
	}
	chosen := quote(c.Vocab.Names[d.Order[d.Index]])
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
