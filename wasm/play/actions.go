package play

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"nexttoken/engine/catalog"
	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// Open replaces the session with spec as a user's action (a model picked,
// the worked example's vocabulary edited); its error goes to the notice.
func (c *Controller) Open(spec session.Spec) {
	c.open(spec, nil)
}

// open opens spec, as an undoable action once a session is open, and
// shows its next step; failed is told an error (nil: the notice says it).
func (c *Controller) open(spec session.Spec, failed func(error)) { c.openThen(spec, failed, nil) }

// openThen is open, with opened run on the new session before the page
// draws it.
func (c *Controller) openThen(spec session.Spec, failed func(error), opened func()) {
	c.flushPrompt()
	c.do("", func() {
		var before *entry
		if c.sum != nil {
			e := c.entry()
			before = &e
		}
		c.send(Request{Op: Open, Spec: spec}, func(a Answer) {
			if a.Err != nil {
				if failed != nil {
					failed(a.Err)
				} else {
					c.fail("", a.Err)
				}
				return
			}
			c.take(a.Session)
			if before != nil {
				c.remember(*before)
			}
			c.clearMessages()
			c.prompt.reset(a.Session.Spec.Prompt)
			c.shown = c.sum.Steps()
			if opened != nil {
				opened()
			}
			c.changed()
		})
	})
}

// SetModel opens the catalog's model name with the current settings; a
// model the page does not hold yet is fetched first (Host.Missing).
func (c *Controller) SetModel(name string) {
	m, ok := catalog.Lookup(name)
	if !ok {
		c.fail("", fmt.Errorf("there is no model called %q", name))
		return
	}
	spec := m.Spec(c.Settings())
	c.openOrFetch(spec)
}

// OpenModel opens a new session on the model called name, which the page
// now holds (a reader's file or URL), with the prompt and settings of the
// session it replaces: as a chat's one user message if the model has a
// chat template, with no prompt if that one does not fit it.
func (c *Controller) OpenModel(name string) {
	spec := session.Spec{Model: name, Sampler: c.Settings()}
	if c.sum != nil {
		spec.Prompt, spec.Chat = c.sum.Spec.Prompt, c.sum.Spec.Chat
	}
	chat, spec := asChat(spec), asPrompt(spec)
	c.open(chat, func(error) {
		c.open(spec, func(error) {
			spec.Prompt = ""
			c.open(spec, nil)
		})
	})
}

// openOrFetch opens spec, or has the page fetch its model and then opens
// it.
func (c *Controller) openOrFetch(spec session.Spec) {
	c.open(spec, func(err error) {
		if !c.host.Missing(err, func() { c.Open(spec) }) {
			c.fail("", err)
		}
	})
}

// RenameModel renames the model called old to name wherever the session
// and its history name it: a model opened from files is named by them
// until the browser's hash of them is in (modelfile.Ref.Pending), and a
// link needs the hash. It is no action of the reader's: nothing to undo.
func (c *Controller) RenameModel(old, name string) {
	c.do("", func() {
		for _, list := range [][]entry{c.undo, c.redo} {
			for i := range list {
				if list[i].spec.Model == old {
					list[i].spec.Model = name
				}
			}
		}
		if c.sum == nil || c.sum.Spec.Model != old {
			return
		}
		c.send(Request{Op: Rename, Spec: session.Spec{Model: name}}, func(a Answer) {
			if a.Err == nil {
				c.sum.Spec.Model = name
				c.changed()
			}
		})
	})
}

// Tell shows the reader a message about the whole page, until the next
// action.
func (c *Controller) Tell(msg string) {
	c.do("", func() {
		c.clearMessages()
		c.notice = msg
		c.changed()
	})
}

// Step takes the next step.
func (c *Controller) Step() {
	if c.sum == nil || c.sum.Next == nil {
		return
	}
	c.act("", Request{Op: Step, N: 1}, "", c.atEnd)
}

// Force chooses token at step i instead of the sampler: the next step, or
// at a step taken a new branch of the tree that goes on with the current
// settings.
func (c *Controller) Force(i, token int) {
	c.act("", Request{Op: Force, Step: i, Token: token, Keep: c.keep(i)}, "", c.atEnd)
}

// EditLogit sets token's logit at step i to v (−Inf masks it); at a step
// taken it starts a branch, as Force does. The step stays on display.
func (c *Controller) EditLogit(i, token int, v float64) {
	field := LogitField(token)
	if math.IsNaN(v) || math.IsInf(v, 1) || math.Abs(v) > LogitLimit && !math.IsInf(v, -1) {
		c.fail(field, TooLarge(LogitLimit))
		return
	}
	c.act(field, Request{Op: EditLogit, Step: i, Token: token, Value: v, Keep: c.keep(i)}, field,
		func(Answer) int { return i })
}

// EditLogitText sets token's logit at step i to the number text holds,
// or refuses it by the token's field.
func (c *Controller) EditLogitText(i, token int, text string) {
	v, err := ParseNumber(text, LogitLimit, true)
	if err != nil {
		c.fail(LogitField(token), err)
		return
	}
	c.EditLogit(i, token, v)
}

// SetSettingText sets the setting called name to the number text holds,
// or refuses it by the setting's field.
func (c *Controller) SetSettingText(name, text string) {
	v, err := ParseNumber(text, math.MaxFloat64, false)
	if err != nil {
		if p, ok := paramNamed(name); ok && errors.As(err, new(TooLarge)) {
			err = errors.New("want " + p.Range())
		}
		c.fail(name, err)
		return
	}
	c.SetSetting(name, v)
}

// LogitLimit bounds a typed logit; softmax is exact far beyond it, but a
// person typing 1e300 made a typo.
const LogitLimit = 1e4

// LogitField is the field of token id's logit, for its FieldError.
func LogitField(id int) string { return "logit:" + strconv.Itoa(id) }

// keep is Request.Keep for an action at step i: the current settings when
// i is a step taken, where the action starts a branch.
func (c *Controller) keep(i int) *sampler.Settings {
	if c.sum == nil || i >= c.sum.Steps() {
		return nil
	}
	s := c.Settings()
	return &s
}

// SetSetting sets the sampler setting called name to v from the next
// step on; a value out of its range is refused by its field.
func (c *Controller) SetSetting(name string, v float64) {
	p, ok := paramNamed(name)
	if !ok {
		c.fail("", fmt.Errorf("there is no setting called %q", name))
		return
	}
	if err := p.Check(v); err != nil || math.IsNaN(v) {
		c.fail(name, errors.New("want "+p.Range()))
		return
	}
	s := c.Settings()
	p.Set(&s, v)
	// A llama.cpp stage switched on takes its defaults, as in a link.
	compare.StageDefaults(&s, func(q string) bool { return q == name })
	c.setSampler("set:"+name, s, name)
}

// SetSequence runs llama.cpp's stages in the order letters gives.
func (c *Controller) SetSequence(letters string) {
	s := c.Settings()
	s.Sequence = strings.TrimSpace(letters)
	c.setSampler("set:"+FieldSequence, s, FieldSequence)
}

// Decodings are the ways of decoding the page offers, in its order.
var Decodings = []string{Greedy, Sample, RunC, LlamaCpp, HF}

// The decodings: greedy and sampling in the chain, then the modes of
// run.c and the other runtimes, by their names.
const (
	Greedy   = "greedy"                 // argmax: temperature 0 in the chain
	Sample   = "sample"                 // the chain at a temperature
	RunC     = string(sampler.RunC)     // run.c's sampler
	LlamaCpp = string(sampler.LlamaCpp) // llama.cpp's chain, from its defaults
	HF       = string(sampler.HF)       // Hugging Face's, from its defaults
)

// Decoding is the decoding settings s show: Greedy, Sample, or their mode.
func Decoding(s sampler.Settings) string {
	switch {
	case s.Runtime(): // llama.cpp's greedy is its own temperature 0, set in its field
		return string(s.Mode)
	case s.Temperature == 0:
		return Greedy
	case s.Mode == sampler.RunC:
		return RunC
	}
	return Sample
}

// SetDecoding switches the way of decoding, keeping what carries over:
// a runtime starts from its own defaults, as a link naming it does.
func (c *Controller) SetDecoding(mode string) {
	s := c.Settings()
	switch mode {
	case Greedy:
		if s.Runtime() {
			s = s.InMode(sampler.Chain) // Hugging Face has no temperature 0; llama.cpp's is its own field
		}
		s.Temperature = 0
	case Sample:
		s = s.InMode(sampler.Chain)
		if s.Temperature == 0 {
			s.Temperature = 1
		}
	case RunC:
		s = sampler.Settings{Mode: sampler.RunC, Temperature: max(s.Temperature, 1), TopP: s.TopP, Seed: s.Seed}
	case LlamaCpp, HF:
		// The runtime's defaults, shown in the fields; a seed beyond
		// llama.cpp's 32 bits is refused with its reason.
		d, err := compare.ChainSettings(mode, s, nil)
		if err != nil {
			c.fail(FieldDecoding, err)
			return
		}
		s = d
	default:
		c.fail(FieldDecoding, fmt.Errorf("%q is none of %s", mode, strings.Join(Decodings, ", ")))
		return
	}
	c.setSampler("set:"+FieldDecoding, s, FieldDecoding)
}

// FieldIgnoreEOS is the field of the switch that keeps going past the end
// of text.
const FieldIgnoreEOS = "ignore_eos"

// SetIgnoreEOS switches ignoring the end of text (llama.cpp's
// --ignore-eos: the tokens that end a text are masked) from the next step
// on, as any setting.
func (c *Controller) SetIgnoreEOS(on bool) {
	s := c.Settings()
	s.IgnoreEOS = on
	c.setSampler("set:"+FieldIgnoreEOS, s, FieldIgnoreEOS)
}

// CanKeepGoing reports whether the session ended because the model chose a
// token that ends a text, which KeepGoing takes again.
func (c *Controller) CanKeepGoing() bool {
	if c.sum == nil || c.sum.Next != nil {
		return false
	}
	stop := c.sum.Trace.Stop
	return (stop.Kind == session.EndOfText || stop.Kind == session.NewText || stop.Kind == session.EndOfTurn) && !stop.Forced && c.sum.Steps() > 0
}

// KeepGoing takes the step that ended the text again with the end of text
// ignored from there on, as one action for Undo: the session goes on.
func (c *Controller) KeepGoing() {
	if !c.CanKeepGoing() {
		return
	}
	back := c.sum.Spec
	back.Steps--
	set := c.Settings()
	set.IgnoreEOS = true
	c.BeginGesture()
	c.act("", Request{Op: Restore, Spec: back}, "", c.atEnd)
	c.setSampler("", set, FieldIgnoreEOS)
	c.act("", Request{Op: Step, N: 1}, "", c.atEnd)
	c.do("", c.EndGesture)
}

// setSampler makes s the settings from the next step on.
func (c *Controller) setSampler(key string, s sampler.Settings, field string) {
	c.act(key, Request{Op: SetSampler, Set: s}, field, c.stay)
}

// Rerun takes every step again with the current settings.
func (c *Controller) Rerun() { c.act("", Request{Op: Rerun}, "", c.atEnd) }

// Reset goes back to the prompt, keeping the current settings.
func (c *Controller) Reset() { c.act("", Request{Op: Reset}, "", c.atEnd) }

// Switch makes path id the session's; the current settings go on.
func (c *Controller) Switch(id int) {
	s := c.Settings()
	c.act("", Request{Op: Switch, Path: id, Keep: &s}, "", c.atEnd)
}

// Delete removes path id from the tree.
func (c *Controller) Delete(id int) { c.act("", Request{Op: Delete, Path: id}, "", c.stay) }

// noteOf is what the page says about an action beyond its effect: what a
// switch did to the cache, and a branch's settings that the current ones
// replaced.
func (c *Controller) noteOf(r Request, a Answer) string {
	var parts []string
	if a.Refill != nil {
		parts = append(parts, fmt.Sprintf("Switched: the KV cache was truncated to %d positions and %d were refilled.", a.Refill.Kept, a.Refill.Refilled))
	}
	if a.Inherited != nil && r.Keep != nil {
		parts = append(parts, "The branch goes on with your current settings: "+Differences(*r.Keep, *a.Inherited)+".")
	}
	return strings.Join(parts, " ")
}

// Undo takes back the user's last action: a step, a run, a force, an
// edit, a setting, a reset, a prompt or a model.
func (c *Controller) Undo() { c.travel(&c.undo, &c.redo) }

// Redo does again what Undo took back.
func (c *Controller) Redo() { c.travel(&c.redo, &c.undo) }

// travel restores the newest entry of from, keeping the present in to.
func (c *Controller) travel(from, to *[]entry) {
	c.flushPrompt()
	c.do("", func() {
		c.run.on = false
		if len(*from) == 0 || c.sum == nil {
			return
		}
		target := (*from)[len(*from)-1]
		present := c.entry()
		c.send(Request{Op: Restore, Spec: target.spec}, func(a Answer) {
			c.take(a.Session)
			if a.Err != nil {
				c.fail("", a.Err)
				return
			}
			*from = (*from)[:len(*from)-1]
			*to = append(*to, present)
			c.clearMessages()
			c.prompt.reset(c.sum.Spec.Prompt)
			c.shown = min(target.shown, c.sum.Steps())
			c.changed()
		})
	})
}

// Select shows step i: a step taken, or the next one (the number of
// steps). It is not an action Undo takes back.
func (c *Controller) Select(i int) {
	c.do("select", func() {
		if c.sum == nil || i < 0 || i > c.sum.Steps() || i == c.shown {
			return
		}
		c.shown = i
		c.changed()
	})
}

// BeginGesture starts a drag or an edit whose changes Undo takes back as
// one.
func (c *Controller) BeginGesture() { c.gesture = 1 }

// EndGesture ends it.
func (c *Controller) EndGesture() { c.gesture = 0 }

// Key is a key the page passes on when no field has the focus.
type Key struct {
	Name             string // as KeyboardEvent.key: "ArrowLeft", "z", …
	Ctrl, Shift, Alt bool   // Ctrl means Ctrl or Cmd
}

// Press runs the shortcut of k and reports whether there is one: ← and →
// move through the steps (→ on the next step takes it), Ctrl+Z undoes and
// Shift+Ctrl+Z or Ctrl+Y redoes, s steps, g runs or stops, r resets.
func (c *Controller) Press(k Key) bool {
	if c.sum == nil || k.Alt {
		return false
	}
	name := strings.ToLower(k.Name)
	if k.Ctrl {
		switch {
		case name == "z" && !k.Shift:
			c.Undo()
		case name == "z" && k.Shift, name == "y":
			c.Redo()
		default:
			return false
		}
		return true
	}
	if k.Shift {
		return false
	}
	switch name {
	case "arrowleft":
		c.Select(c.shown - 1)
	case "arrowright":
		if c.shown < c.sum.Steps() {
			c.Select(c.shown + 1)
		} else {
			c.Step()
		}
	case "home":
		c.Select(0)
	case "end":
		c.Select(c.sum.Steps())
	case "s":
		c.Step()
	case "g":
		c.Run()
	case "r":
		c.Reset()
	default:
		return false
	}
	return true
}
