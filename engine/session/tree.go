package session

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// # The generation tree
//
// Forcing another token, or editing a logit, at a step already taken
// starts a branch: the session takes the new path and keeps the one it
// left. The paths form a tree. Path 0 is the session's own, the one its
// Spec's Forced, Edits, Changes and Steps describe and its Trace holds;
// path k ≥ 1 is Spec.Branches[k−1], which shares the steps before its At
// with path From and has its own from At on. A path is fixed by its hand
// edits, as a Spec is (the same prompt, model and step-0 settings for
// all), so New(spec) grows the whole tree again.
//
// In memory each branch keeps only its own steps, At onwards: a trie of
// step segments, in which a step shared by several paths is kept once.
// Switch makes another path the session's: the session goes back to the
// last step the two paths share, truncating the KV cache there, and runs
// the path's steps again, refilling it (Refill says how much). The tree is
// then grown again around the new path, each other path leaving the
// earliest path it shares the most steps with, so that every step is kept
// once.
//
// Undo takes the last step of the session's path back and keeps the
// branches (a branch that left after it now leaves at it). Reset clears
// the tree, and so does any change of step 0's settings (SetSampler before
// the first step, Rerun), which would change every path.

// Branch is one path of the generation tree besides the session's own: it
// shares steps 0 … At−1 with path From and takes its own from At on.
type Branch struct {
	From    int      `json:"from"`              // the path it leaves: 0 the session's, k ≥ 1 Branches[k−1], before this one
	At      int      `json:"at"`                // its first step of its own, at most the steps of From
	Steps   int      `json:"steps"`             // its number of steps, at least At
	Forced  []Force  `json:"forced,omitempty"`  // its own forced tokens, edits and changes: each at a step ≥ At
	Edits   []Edit   `json:"edits,omitempty"`   //
	Changes []Change `json:"changes,omitempty"` //
}

// Path is one path of the tree as a tree view draws it.
type Path struct {
	Branch         // where it leaves; path 0 leaves none (From −1, At 0)
	Own    []Step  // its steps from At on, shared with the session: read them, do not change them
	Prob   float64 // the total log-probability of the path: Σ ln Prob of every step's token, from step 0
}

// Refill says what a switch did to the KV cache: it kept the first Kept
// positions and computed Refilled positions again.
type Refill struct {
	Kept, Refilled int
}

// MaxBranches bounds the tree: a link carries it, and a page keeps it.
const MaxBranches = 256

// branch is a Branch with its own steps.
type branch struct {
	Branch
	own []Step
}

// path is one path in full: what a Spec's own lists and Steps say.
type path struct {
	steps   int
	forced  []Force
	edits   []Edit
	changes []Change
}

// cut is p's hand edits before step at and what p's own edits say from at
// on, which are own's.
func cut(p path, at int, own Branch) path {
	before := func(step int) bool { return step >= at }
	return path{
		steps:   own.Steps,
		forced:  append(slices.DeleteFunc(slices.Clone(p.forced), func(f Force) bool { return before(f.Step) }), own.Forced...),
		edits:   append(slices.DeleteFunc(slices.Clone(p.edits), func(e Edit) bool { return before(e.Step) }), own.Edits...),
		changes: append(slices.DeleteFunc(slices.Clone(p.changes), func(c Change) bool { return before(c.Step) }), own.Changes...),
	}
}

// own is the Branch that leaves from at at and then takes p.
func (p path) own(from, at int) Branch {
	return Branch{
		From: from, At: at, Steps: p.steps,
		Forced:  slices.DeleteFunc(slices.Clone(p.forced), func(f Force) bool { return f.Step < at }),
		Edits:   slices.DeleteFunc(slices.Clone(p.edits), func(e Edit) bool { return e.Step < at }),
		Changes: slices.DeleteFunc(slices.Clone(p.changes), func(c Change) bool { return c.Step < at }),
	}
}

// sameAt reports whether two paths take step j the same way: the same
// forced token, the same edits and the same change of settings there.
// Steps are deterministic, so two paths that agree on every step before j
// and at j take the same step j.
func sameAt(a, b path, j int) bool {
	forcedAt := func(p path) (int, bool) {
		for _, f := range slices.Backward(p.forced) {
			if f.Step == j {
				return f.Token, true
			}
		}
		return 0, false
	}
	editsAt := func(p path) map[int]float64 {
		m := map[int]float64{}
		for _, e := range p.edits {
			if e.Step == j {
				m[e.Token] = e.Logit
			}
		}
		return m
	}
	changeAt := func(p path) []Change {
		return slices.DeleteFunc(slices.Clone(p.changes), func(c Change) bool { return c.Step != j })
	}
	fa, okA := forcedAt(a)
	fb, okB := forcedAt(b)
	ea, eb := editsAt(a), editsAt(b)
	if fa != fb || okA != okB || len(ea) != len(eb) || !slices.Equal(changeAt(a), changeAt(b)) {
		return false
	}
	for t, l := range ea {
		if m, ok := eb[t]; !ok || m != l {
			return false
		}
	}
	return true
}

// shared is how many steps two paths share: those before the first step
// they take differently, at most the steps either has.
func shared(a, b path) int {
	n := min(a.steps, b.steps)
	for j := range n {
		if !sameAt(a, b, j) {
			return j
		}
	}
	return n
}

// pathOf is path id in full: 0 the session's, k ≥ 1 Branches[k−1].
func (s *Session) pathOf(id int) path {
	if id == 0 {
		return path{steps: len(s.trace.Steps), forced: s.spec.Forced, edits: s.spec.Edits, changes: s.spec.Changes}
	}
	b := s.branches[id-1].Branch
	return cut(s.pathOf(b.From), b.At, b)
}

// stepOf is step j of path id.
func (s *Session) stepOf(id, j int) *Step {
	if id == 0 {
		return &s.trace.Steps[j]
	}
	b := &s.branches[id-1]
	if j >= b.At {
		return &b.own[j-b.At]
	}
	return s.stepOf(b.From, j)
}

// regrow makes the tree that of the paths ids around top, which is to
// become the session's: each leaves the earliest path before it that it
// shares the most steps with. A path that has nothing of its own, no step
// and no edit, goes. It reads the steps of the present tree, so it runs
// before the session's path changes.
func (s *Session) regrow(top path, ids []int) {
	paths := []path{top}
	var grown []branch
	for _, id := range ids {
		p := s.pathOf(id)
		from, at := 0, shared(top, p)
		for k, q := range paths[1:] {
			if n := shared(q, p); n > at {
				from, at = k+1, n
			}
		}
		b := branch{Branch: p.own(from, at)}
		if at == p.steps && len(b.Forced)+len(b.Edits)+len(b.Changes) == 0 {
			continue
		}
		for j := at; j < p.steps; j++ { // none leaves own nil, as New does
			b.own = append(b.own, *s.stepOf(id, j))
		}
		grown = append(grown, b)
		paths = append(paths, p)
	}
	s.branches = grown
}

// follow makes target the session's path: back to the last step the two
// share, then target's steps again.
func (s *Session) follow(target path) (Refill, error) {
	c := shared(s.pathOf(0), target)
	var r Refill
	if s.tr != nil {
		r.Kept = s.tr.Cache.Len
		if c < len(s.trace.Steps) {
			r.Kept = s.trace.Steps[c].context - 1 // the last token of the context is fed again
		}
	}
	if err := s.rewind(c); err != nil {
		return r, err
	}
	s.forget()
	s.spec.Forced, s.spec.Edits, s.spec.Changes = target.forced, target.edits, target.changes
	for len(s.trace.Steps) < target.steps {
		if err := s.Step(); errors.Is(err, ErrStopped) {
			break
		} else if err != nil {
			return r, err
		}
	}
	if s.tr != nil {
		r.Refilled = s.tr.Cache.Len - r.Kept
	}
	return r, nil
}

// fork makes target, which leaves the session's path at its last step,
// the session's: a path of the tree that already takes it is switched to,
// else target starts a branch and the path it leaves is kept.
func (s *Session) fork(target path) error {
	for id := range len(s.branches) + 1 {
		if p := s.pathOf(id); p.steps >= target.steps && shared(p, target) == target.steps {
			if id == 0 {
				return nil
			}
			_, err := s.Switch(id)
			return err
		}
	}
	if len(s.branches) >= MaxBranches {
		return fmt.Errorf("the tree has %d branches, the most it may have: delete one first", MaxBranches)
	}
	s.regrow(target, s.ids(-1))
	_, err := s.follow(target)
	return err
}

// ids are the paths of the tree, 0 the session's, without skip.
func (s *Session) ids(skip int) []int {
	var ids []int
	for id := range len(s.branches) + 1 {
		if id != skip {
			ids = append(ids, id)
		}
	}
	return ids
}

// Switch makes path id (≥ 1: Spec().Branches[id−1]) the session's; the
// path it leaves stays in the tree. It reports how much of the KV cache
// it kept and refilled.
func (s *Session) Switch(id int) (Refill, error) {
	if id < 1 || id > len(s.branches) {
		return Refill{}, fmt.Errorf("branch %d does not exist (the tree has %d besides the session's path)", id, len(s.branches))
	}
	target := s.pathOf(id)
	s.regrow(target, s.ids(id))
	return s.follow(target)
}

// Delete removes path id (≥ 1: Spec().Branches[id−1]) from the tree; the
// session's own path cannot go. Paths that leave it keep their steps.
func (s *Session) Delete(id int) error {
	if id < 1 || id > len(s.branches) {
		return fmt.Errorf("branch %d does not exist (the tree has %d besides the session's path)", id, len(s.branches))
	}
	ids := s.ids(id)
	s.regrow(s.pathOf(0), ids[1:])
	return nil
}

// Tree returns every path: the session's first, then Spec().Branches in
// order. Their steps are shared with the session: read them, do not
// change them.
func (s *Session) Tree() []Path {
	me := s.pathOf(0).own(-1, 0)
	paths := []Path{{Branch: me, Own: s.trace.Steps}}
	for _, b := range s.branches {
		paths = append(paths, Path{Branch: b.Branch, Own: b.own})
	}
	for id := range paths {
		prob := 0.0
		for j := range paths[id].Steps {
			prob += math.Log(s.stepOf(id, j).Prob)
		}
		paths[id].Prob = prob
	}
	return paths
}

// Text is the text of path id: the prompt and its chosen tokens.
func (s *Session) Text(id int) (string, error) {
	if id < 0 || id > len(s.branches) {
		return "", fmt.Errorf("branch %d does not exist (the tree has %d besides the session's path)", id, len(s.branches))
	}
	if id == 0 {
		return s.trace.Text, nil
	}
	prompt := make([]int, len(s.trace.Prompt))
	for i, t := range s.trace.Prompt {
		prompt[i] = t.ID
	}
	text := s.model.Tokenizer.Decode(prompt)
	for j := range s.pathOf(id).steps {
		text += s.stepOf(id, j).Piece
	}
	return text, nil
}

// CheckBranches applies New's rules to a Spec's branches, given the
// steps of its own path: at most MaxBranches, each leaving a path before
// it at one of that path's steps, with its own edits at its own steps and
// its own changes in order (CheckChanges).
func CheckBranches(steps int, branches []Branch) error {
	if len(branches) > MaxBranches {
		return fmt.Errorf("%d branches, more than %d", len(branches), MaxBranches)
	}
	all := []int{steps}
	for i, b := range branches {
		if err := b.check(i+1, all); err != nil {
			return fmt.Errorf("branch %d: %w", i+1, err)
		}
		all = append(all, b.Steps)
	}
	return nil
}

// growTree grows the spec's branches, path after path, and comes back to
// the session's own path: New's last part. A path that stops before its
// Steps has fewer, which the paths leaving it must allow for.
func (s *Session) growTree(branches []Branch) error {
	home := s.pathOf(0)
	paths := []path{home}
	for i, b := range branches {
		id := i + 1
		if n := paths[b.From].steps; b.At > n {
			return fmt.Errorf("branch %d leaves path %d at step %d, but path %d stops after %d steps", id, b.From, b.At, b.From, n)
		}
		p := cut(paths[b.From], b.At, b)
		if err := CheckChanges(p.changes); err != nil {
			return fmt.Errorf("branch %d: %w", id, err)
		}
		s.branches = append(s.branches, branch{Branch: b})
		if _, err := s.follow(p); err != nil {
			return fmt.Errorf("branch %d: %w", id, err)
		}
		p.steps = len(s.trace.Steps)
		s.branches[i].Steps = p.steps
		s.branches[i].own = append([]Step(nil), s.trace.Steps[b.At:]...) // nil when none, as regrow leaves it
		paths = append(paths, p)
	}
	_, err := s.follow(home)
	return err
}

// clone is b with lists of its own.
func (b Branch) clone() Branch {
	b.Forced, b.Edits, b.Changes = slices.Clone(b.Forced), slices.Clone(b.Edits), slices.Clone(b.Changes)
	return b
}

// check applies CheckBranches' rules to branch id, given the steps of the
// paths before it.
func (b Branch) check(id int, steps []int) error {
	if b.From < 0 || b.From >= id {
		return fmt.Errorf("it leaves path %d: want a path before it, 0 to %d", b.From, id-1)
	}
	if n := steps[b.From]; b.At < 0 || b.At > n || b.Steps < b.At {
		return fmt.Errorf("it leaves path %d at step %d and has %d steps: want 0 ≤ at ≤ %d (the steps of path %d) and at ≤ steps", b.From, b.At, b.Steps, n, b.From)
	}
	for _, f := range b.Forced {
		if f.Step < b.At {
			return fmt.Errorf("forced token %d at step %d, before the branch's first step %d", f.Token, f.Step, b.At)
		}
	}
	for _, e := range b.Edits {
		if e.Step < b.At {
			return fmt.Errorf("edited logit of token %d at step %d, before the branch's first step %d", e.Token, e.Step, b.At)
		}
	}
	for _, c := range b.Changes {
		if c.Step < b.At {
			return fmt.Errorf("change at step %d, before the branch's first step %d", c.Step, b.At)
		}
	}
	return CheckChanges(b.Changes)
}
