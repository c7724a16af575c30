package play

import (
	"strings"
	"time"
	"unicode/utf16"

	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
)

// promptDraft is the prompt field while the reader types: the session
// changes when the prompt is committed (Enter, the field losing the
// focus, or a pause in the typing), and a typing gesture — from its first
// keystroke to Enter or the focus leaving — is one action for Undo.
type promptDraft struct {
	text   string // as typed
	err    string // why it does not run, shown under the field
	dirty  bool   // typed and not yet committed
	open   bool   // a typing gesture is under way
	kept   bool   // its undo entry is kept
	before entry  // the state before it
	cancel func() // the pause's timer
}

// PromptPause is how long the typing pauses before the prompt runs.
const PromptPause = 500 * time.Millisecond

// SetPrompt takes the prompt field's text as typed. The session follows
// once the typing pauses, or at EndPrompt.
func (c *Controller) SetPrompt(text string) {
	p := &c.prompt
	if c.sum == nil {
		return
	}
	if !p.open {
		p.open, p.kept, p.before = true, false, c.entry()
	}
	p.text, p.dirty = text, true
	if p.cancel != nil {
		p.cancel()
	}
	p.cancel = c.host.After(PromptPause, c.commitPrompt)
}

// EndPrompt commits the prompt as typed and ends the typing gesture: the
// reader pressed Enter, or the field lost the focus.
func (c *Controller) EndPrompt() {
	c.commitPrompt()
	c.prompt.open = false
}

// flushPrompt commits a prompt typed and not yet committed before another
// action, and ends the typing gesture.
func (c *Controller) flushPrompt() {
	if c.prompt.dirty {
		c.commitPrompt()
	}
	c.prompt.open = false
}

// commitPrompt runs the prompt as typed: a new session from it with the
// current settings, or the reason it cannot run by the field, the session
// left as it was.
func (c *Controller) commitPrompt() {
	p := &c.prompt
	if p.cancel != nil {
		p.cancel()
		p.cancel = nil
	}
	if !p.dirty {
		return
	}
	p.dirty = false
	text := p.text
	c.do("prompt", func() {
		if c.sum == nil {
			return
		}
		full := fullField(text)
		if text == c.sum.Spec.Prompt {
			p.err = full
			c.changed()
			return
		}
		spec := c.sum.Spec
		spec.Prompt, spec.Sampler = text, c.Settings()
		spec.Steps, spec.Changes, spec.Forced, spec.Edits, spec.Branches = 0, nil, nil, nil, nil
		before := c.entry()
		if p.open {
			before = p.before
		}
		c.send(Request{Op: Open, Spec: spec}, func(a Answer) {
			if a.Err != nil {
				p.err = strings.TrimSpace(full + " " + Words(a.Err))
				c.changed()
				return
			}
			c.take(a.Session)
			if !p.kept {
				c.remember(before)
				p.kept = p.open
			}
			c.clearMessages()
			p.err = full
			c.shown = c.sum.Steps()
			c.changed()
		})
	})
}

// fullField is the prompt field's note when text fills it: the field takes
// link.MaxPrompt characters, far more than any context here, so a full
// field is most likely a longer paste that the browser cut.
func fullField(text string) string {
	if utf16Len(text) < link.MaxPrompt {
		return ""
	}
	return "The field holds " + sampler.Readable(link.MaxPrompt) + " characters: a longer paste is cut there."
}

// utf16Len is the length of s as JavaScript counts it, in UTF-16 code
// units, as a field's maxlength does.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += max(utf16.RuneLen(r), 1) // an invalid rune reads as U+FFFD
	}
	return n
}

// reset makes the draft the session's prompt, with no gesture under way.
func (p *promptDraft) reset(text string) {
	if p.cancel != nil {
		p.cancel()
	}
	*p = promptDraft{text: text}
}
