//go:build !js

package ui

import (
	"strings"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
)

// TestTreeCard forks a session twice and checks what the tree card draws:
// every path with its tokens' probabilities and total log-probability,
// the buttons each branch has, two paths compared side by side, and the
// cache line after a switch.
func TestTreeCard(t *testing.T) {
	p := page(t, toySpec(4), -1)
	if html, _ := render(treeCard(p.s(), p.ctl, false)); html != "" {
		t.Errorf("the page shows a tree of one path: %s", html)
	}
	// An embed of view=tree shows it.
	html, text := render(treeCard(p.s(), p.ctl, true))
	contains(t, "a tree of one path", text, "Generation tree", "the session's path", "ln p = ", "Compare")
	lacks(t, "a tree of one path", html, "branch-switch", "branch-delete")

	p.ctl.Force(1, 5) // "mat" instead of "on"
	p.ctl.Force(0, 1) // "cat" instead of "sat"
	card := treeCard(p.s(), p.ctl, false).(*TreeCard)
	if len(card.Paths) != 3 {
		t.Fatalf("%d paths after two forks, want 3", len(card.Paths))
	}
	for _, tc := range []struct {
		name   string
		picked []int
		wants  []string
		lacks  []string
	}{
		{"no pick", nil, []string{`data-path="1"`, `data-path="2"`, "path 1, from step 1", "path 2, from step 2", "Switch", "Delete"}, []string{"tree-compare"}},
		{"one pick", []int{1}, []string{"branch-pick picked"}, []string{"tree-compare"}},
		{"two picks", []int{0, 1}, []string{`id="tree-compare"`, "The session&#39;s path · ln p", "Path 1 · ln p"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			card := treeCard(p.s(), p.ctl, false).(*TreeCard)
			card.picked = tc.picked
			html, _ := render(card)
			contains(t, tc.name, html, tc.wants...)
			lacks(t, tc.name, html, tc.lacks...)
		})
	}
	// Each path's tokens carry their probability, and its total is their Σ ln p.
	for _, path := range card.Paths {
		if len(path.Tokens) == 0 || !strings.HasPrefix(path.Text, "The cat") {
			t.Errorf("path %d: %d tokens, text %q", path.ID, len(path.Tokens), path.Text)
		}
	}
	html, _ = render(card)
	contains(t, "the tree", html, "p = "+sig(card.Paths[1].Tokens[0].Prob), "ln p = "+logProb(card.Paths[1].LogProb))

	before := p.s().Session.Trace.Text
	p.ctl.Switch(2)
	_, text = render(treeCard(p.s(), p.ctl, false))
	contains(t, "after a switch", text, "Switched: the KV cache was truncated to ", " were refilled")
	if p.s().Session.Trace.Text == before {
		t.Error("the switch left the session's text as it was")
	}
	p.ctl.Delete(1)
	if n := len(p.s().Session.Tree); n != 2 {
		t.Errorf("%d paths after a delete, want 2", n)
	}
	p.ctl.Undo()
	if n := len(p.s().Session.Tree); n != 3 {
		t.Errorf("%d paths after undoing the delete, want 3", n)
	}
}

// TestTreeEmbed opens a tree link as an embed of view=tree: the strip,
// the controls and the tree, no step views.
func TestTreeEmbed(t *testing.T) {
	spec := stories(6, sampler.Settings{Temperature: 1, Seed: 3})
	p := page(t, spec, -1)
	p.ctl.Force(2, 300)
	frag, err := link.Encode(link.State{Spec: p.s().Session.Spec, Page: link.Page{View: "tree"}})
	if err != nil {
		t.Fatal(err)
	}
	e := playgroundAt("embed=1&view=tree", frag)
	if s := e.ctl.Snapshot(); s.Notice != "" || s.Page.View != "tree" {
		t.Fatalf("view %q, notice %q", s.Page.View, s.Notice)
	}
	html, _ := render(e)
	contains(t, "the tree embed", html, `id="tree"`, `data-path="1"`, `id="tokens"`)
	lacks(t, "the tree embed", html, `id="bars"`, `id="kv"`)
}
