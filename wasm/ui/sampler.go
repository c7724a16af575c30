package ui

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// renderSampler shows the sampler's settings, what each stage did at this
// step, and the choice: the argmax, or the random draw u on the cumulative
// distribution.
func (p *Playground) renderSampler(d *session.Detail) app.UI {
	s := p.sess.Spec().Sampler
	return card("sampler", "Sampler", "",
		p.renderSettings(s),
		p.renderStages(d),
		p.renderChoice(d),
	)
}

// settingFields are the numeric settings, with how to read and write each.
var settingFields = []struct {
	id, label string
	chainOnly bool
	integer   bool
	get       func(sampler.Settings) float64
	set       func(*sampler.Settings, float64)
	min, max  float64
}{
	{"temperature", "temperature", false, false, func(s sampler.Settings) float64 { return s.Temperature },
		func(s *sampler.Settings, v float64) { s.Temperature = v }, 0, 100},
	{"top_k", "top-k", true, true, func(s sampler.Settings) float64 { return float64(s.TopK) },
		func(s *sampler.Settings, v float64) { s.TopK = int(v) }, 0, 1 << 20},
	{"top_p", "top-p", false, false, func(s sampler.Settings) float64 { return s.TopP },
		func(s *sampler.Settings, v float64) { s.TopP = v }, 0, 1},
	{"min_p", "min-p", true, false, func(s sampler.Settings) float64 { return s.MinP },
		func(s *sampler.Settings, v float64) { s.MinP = v }, 0, 1},
	{"repetition_penalty", "repetition penalty", true, false, func(s sampler.Settings) float64 { return s.RepetitionPenalty },
		func(s *sampler.Settings, v float64) { s.RepetitionPenalty = v }, 0, 100},
	{"seed", "seed", false, true, func(s sampler.Settings) float64 { return float64(s.Seed) },
		func(s *sampler.Settings, v float64) { s.Seed = uint64(v) }, 1, 1 << 53},
}

func (p *Playground) renderSettings(s sampler.Settings) app.UI {
	mode := "sample"
	switch {
	case s.Temperature == 0:
		mode = "greedy"
	case s.Mode == sampler.RunC:
		mode = "runc"
	}
	fields := []app.UI{app.Label().Class("field").Body(
		app.Span().Text("decoding"),
		app.Select().ID("decoding").OnChange(p.onDecoding).Body(
			app.Option().Value("greedy").Text("greedy (argmax)").Selected(mode == "greedy"),
			app.Option().Value("sample").Text("sample").Selected(mode == "sample"),
			app.Option().Value("runc").Text("sample like llama2.c run.c").Selected(mode == "runc"),
		),
	)}
	if mode != "greedy" {
		for i, f := range settingFields {
			if f.chainOnly && mode == "runc" {
				continue
			}
			fields = append(fields, app.Label().Class("field").Body(
				app.Span().Text(f.label),
				app.Input().ID("set-"+f.id).Type("text").Attr("inputmode", "decimal").Class("setting").
					Value(strconv.FormatFloat(f.get(s), 'g', -1, 64)).OnChange(p.onSetting(i), app.EventScope(i)),
			))
		}
	}
	return app.Div().Class("settings").Body(fields...)
}

func (p *Playground) onDecoding(ctx app.Context, e app.Event) {
	spec := p.sess.Spec()
	s := &spec.Sampler
	switch ctx.JSSrc().Get("value").String() {
	case "greedy":
		s.Temperature = 0
	case "sample":
		s.Mode = sampler.Chain
		if s.Temperature == 0 {
			s.Temperature = 1
		}
	case "runc":
		*s = sampler.Settings{Mode: sampler.RunC, Temperature: max(s.Temperature, 1), TopP: s.TopP, Seed: s.Seed}
	}
	p.replace(spec)
}

func (p *Playground) onSetting(i int) app.EventHandler {
	f := settingFields[i]
	return func(ctx app.Context, e app.Event) {
		v, err := parseNumber(ctx.JSSrc().Get("value").String(), f.max, false)
		var tooLarge errTooLarge
		if errors.As(err, &tooLarge) || err == nil && (v < f.min || f.integer && v != math.Trunc(v)) {
			err = errRange{f.min, f.max, f.integer}
		}
		if err != nil {
			p.notice = strings.ToUpper(f.label[:1]) + f.label[1:] + ": " + err.Error() + "; the last good value is kept."
			return
		}
		spec := p.sess.Spec()
		f.set(&spec.Sampler, v)
		p.replace(spec)
	}
}

func (p *Playground) renderStages(d *session.Detail) app.UI {
	var items []app.UI
	for _, st := range d.Choice.Stages {
		var what string
		switch {
		case st.Name == "repetition_penalty":
			what = "changed " + itoa(st.Affected) + " logits of tokens already in the context"
		case st.Affected > 0:
			what = "removed " + itoa(st.Affected) + " tokens holding " + sig(st.RemovedMass) + " of the probability"
		case st.Name == "temperature":
			what = "divided the logits by T before the softmax"
		default:
			what = "removed nothing"
		}
		items = append(items, app.Li().Body(app.Code().Text(st.Name), app.Text(" "+what)))
	}
	if len(items) == 0 {
		return app.Text("")
	}
	return app.Ol().ID("stages").Class("stages").Body(items...)
}

func (p *Playground) renderChoice(d *session.Detail) app.UI {
	step, c := d.Step, d.Choice
	pr := sig(step.Prob)
	var summary app.UI
	switch {
	case step.Forced:
		summary = app.P().Body(app.Text("Chosen by you: "), app.Strong().ID("choice").Text(p.tokenName(step.Token)),
			app.Text(" (p = "+pr+"); the sampler had chosen "+quote(p.tokenName(c.Token))+"."))
	case c.Greedy:
		summary = app.P().Body(app.Text("Greedy decoding takes the most probable token: "),
			app.Strong().ID("choice").Text(p.tokenName(step.Token)), app.Text(" (p = "+pr+")."))
	default:
		summary = app.P().Body(app.Text("Drew "), app.Strong().ID("draw-u").Text("u = "+sig(c.Draw.U)),
			app.Text(" and walked the cumulative distribution to "), app.Strong().ID("choice").Text(p.tokenName(step.Token)),
			app.Text(" (p = "+pr+")."))
	}
	return app.Div().Class("choice").Body(summary, p.renderDraw(d))
}

// renderDraw draws the cumulative distribution of the candidates as one bar
// of segments, with a mark where the draw landed.
func (p *Playground) renderDraw(detail *session.Detail) app.UI {
	d := detail.Choice.Draw
	if d == nil || len(d.CDF) == 0 {
		return app.Text("")
	}
	total := d.CDF[len(d.CDF)-1]
	const maxSegments = 40
	segs := []app.UI{}
	prev := 0.0
	for i, id := range d.Order {
		if i == maxSegments {
			segs = append(segs, app.Span().Class("seg rest").Style("width", pct((total-prev)/total)).Title(itoa(len(d.Order)-i)+" more tokens"))
			break
		}
		class := "seg"
		if i == d.Index {
			class += " hit"
		}
		segs = append(segs, app.Span().Class(class).Style("width", pct((d.CDF[i]-prev)/total)).
			Title(p.tokenName(id)+": ["+sig(prev)+", "+sig(d.CDF[i])+")").Text(p.tokenName(id)))
		prev = d.CDF[i]
	}
	lo := 0.0
	if d.Index > 0 {
		lo = d.CDF[d.Index-1]
	}
	return app.Div().Class("draw").Body(
		app.Div().Class("cdf").Body(append(segs, app.Span().Class("mark").Style("left", pct(d.Target/total)))...),
		app.P().Class("hint").Text("u = "+sig(d.Target)+" falls in ["+sig(lo)+", "+sig(d.CDF[d.Index])+") of the cumulative distribution, the interval of "+quote(p.tokenName(d.Order[d.Index]))+"."),
	)
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 3, 64) + "%" }

func itoa(n int) string { return strconv.Itoa(n) }
