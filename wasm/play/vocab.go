package play

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/session"
)

// The worked example's vocabulary can be edited: a token renamed, removed
// or added. Each keeps the logits on display, edits and masks included,
// as the new session's logits; each is one action for Undo.

// RenameToken renames token id of a session of hand-typed logits.
func (c *Controller) RenameToken(id int, name string) {
	if spec, ok := c.typedSpec(); ok && id >= 0 && id < len(spec.Vocab) {
		spec.Vocab[id] = strings.TrimSpace(name)
		c.Open(spec)
	}
}

// RemoveToken removes token id of a session of hand-typed logits.
func (c *Controller) RemoveToken(id int) {
	spec, ok := c.typedSpec()
	if !ok || id < 0 || id >= len(spec.Vocab) {
		return
	}
	if len(spec.Vocab) == 1 {
		c.fail("", errors.New("the vocabulary needs at least one token"))
		return
	}
	spec.Vocab = slices.Delete(spec.Vocab, id, id+1)
	spec.Logits = slices.Delete(spec.Logits, id, id+1)
	c.Open(spec)
}

// AddToken adds a token, of logit 0, to a session of hand-typed logits.
func (c *Controller) AddToken() {
	spec, ok := c.typedSpec()
	if !ok {
		return
	}
	name := "token" + strconv.Itoa(len(spec.Vocab))
	for slices.Contains(spec.Vocab, name) {
		name += "'"
	}
	spec.Vocab = append(spec.Vocab, name)
	spec.Logits = append(spec.Logits, 0)
	c.Open(spec)
}

// typedSpec is the session of hand-typed logits with the logits on
// display, edits included, as its logits, ready for a new vocabulary.
func (c *Controller) typedSpec() (session.Spec, bool) {
	d := c.detail.d
	if c.sum == nil || !c.sum.Model.Typed || d == nil {
		return session.Spec{}, false
	}
	spec := c.sum.Spec
	spec.Vocab = slices.Clone(spec.Vocab)
	spec.Logits = make([]float64, len(d.Rows)) // every token's, for hand-typed logits
	for i, r := range d.Rows {
		spec.Logits[i] = r.Logit
	}
	spec.Steps, spec.Forced, spec.Edits, spec.Branches, spec.Changes = 0, nil, nil, nil, nil
	return spec, true
}
