//go:build !js

package main

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// jsClick clicks the element matching selector by script: the tree is
// redrawn after every change, which makes a node lookup by chromedp flaky.
func jsClick(tab context.Context, selector string) {
	testOf(tab).Helper()
	waitFor(tab, `document.querySelector(`+jsString(selector)+`) !== null`)
	evaluate[bool](tab, `(document.querySelector(`+jsString(selector)+`).click(), true)`)
}

// branchButton is the selector of a button of path id in the tree card.
func branchButton(id, class string) string {
	return `#tree li[data-path="` + id + `"] > .branch-row .` + class
}

const treeSnapshot = `JSON.stringify({
	text: document.querySelector('#text')?.textContent,
	tokens: document.querySelector('#tokens')?.textContent,
	tree: document.querySelector('#tree .tree')?.textContent,
})`

// TestTree branches the toy session, compares the two paths, switches
// between them (the cache line says what happened), reopens the tree's
// share link in a fresh tab, identically, and deletes the branch.
func TestTree(t *testing.T) {
	tab := openPage(t, "/?steps=4")
	waitFor(tab, `document.querySelector('#text')?.textContent === 'The cat sat on the mat'`)
	jsClick(tab, `#tokens .tok[data-step="1"]`) // step 2, which chose "on"
	waitFor(tab, `document.querySelector('#step-title')?.textContent.startsWith('Step 2')`)
	jsClick(tab, `#bars .bar[data-token="5"]`) // "mat" there instead
	waitFor(tab, `document.querySelector('#text')?.textContent === 'The cat sat mat'`)
	waitFor(tab, `document.querySelector('#tree li[data-path="1"]') !== null`)
	if got := text(tab, `#tree li[data-path="1"] > .branch-row .branch-name`); !strings.Contains(got, "from step 2") {
		t.Errorf("the branch kept is %q, want one from step 2", got)
	}

	jsClick(tab, branchButton("0", "branch-pick"))
	jsClick(tab, branchButton("1", "branch-pick"))
	waitFor(tab, `document.querySelectorAll('#tree-compare .compare-side').length === 2`)
	sides := evaluate[[]string](tab, `[...document.querySelectorAll('#tree-compare .compare-text')].map(e => e.textContent)`)
	if len(sides) != 2 || sides[0] != "The cat sat mat" || sides[1] != "The cat sat on the mat" {
		t.Errorf("compared texts %q", sides)
	}

	jsClick(tab, branchButton("1", "branch-switch"))
	waitFor(tab, `document.querySelector('#text')?.textContent === 'The cat sat on the mat'`)
	refill := evaluate[string](tab, `document.querySelector('#tree-refill')?.textContent ?? ''`)
	// The paths share step 1: the prompt's 2 positions stay, and step 2's
	// input (position 2) and the three tokens after it are fed again.
	if !strings.Contains(refill, "truncated to 2 positions and 4 were refilled") {
		t.Errorf("after the switch: %q", refill)
	}

	drawn(tab)
	before := evaluate[string](tab, treeSnapshot)
	link := evaluate[string](tab, `document.querySelector('#share-url').value`)
	waitFor(tab, `location.href === `+jsString(link))
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	fresh := openPage(t, u.Path+"#"+u.EscapedFragment())
	if after := evaluate[string](fresh, treeSnapshot); after != before {
		t.Errorf("the tree link opened another tree:\nbefore %s\nafter  %s", before, after)
	}

	jsClick(tab, branchButton("1", "branch-delete"))
	waitFor(tab, `document.querySelector('#tree li[data-path="1"]') === null`)
	if got := text(tab, "#text"); got != "The cat sat on the mat" {
		t.Errorf("after deleting the branch the text is %q", got)
	}
}

// TestTreeEmbedView opens a tree link as view=tree embed: the tree card, no
// step views.
func TestTreeEmbedView(t *testing.T) {
	tab := openPage(t, "/?steps=4")
	jsClick(tab, `#tokens .tok[data-step="0"]`)
	waitFor(tab, `document.querySelector('#step-title')?.textContent.startsWith('Step 1')`)
	jsClick(tab, `#bars .bar[data-token="1"]`)
	waitFor(tab, `document.querySelector('#tree li[data-path="1"]') !== null`)
	drawn(tab)
	link := evaluate[string](tab, `document.querySelector('#share-url').value`)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	embed := openPage(t, "/?embed=1&view=tree#"+u.EscapedFragment())
	waitFor(embed, `document.querySelector('#tree li[data-path="1"]') !== null`)
	if n := evaluate[int](embed, `document.querySelectorAll('#bars, #kv').length`); n != 0 {
		t.Errorf("the tree embed shows %d step views", n)
	}
}

// TestBranchTiming measures a switch of branch on stories260K: two paths
// of 64 steps that part at step 9, the switch clicked until the text on
// the page changes — the cache truncated to the shared steps, 56 steps
// run again and the page redrawn. A tab a build, the builds in turn. A
// measurement: make timing runs it.
func TestBranchTiming(t *testing.T) {
	const rounds = 20
	const name = "stories260K: switch between two 64-step paths parting at step 9 → DOM"
	needTiming(t, name)
	spec := session.Spec{Model: "stories260K", Prompt: "Once upon a time", Steps: 64,
		Sampler:  sampler.Settings{Mode: sampler.Chain, Temperature: 1, Seed: 3},
		Branches: []session.Branch{{From: 0, At: 8, Steps: 64, Forced: []session.Force{{Step: 8, Token: 300}}}}}
	frag, err := link.Encode(link.State{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	builds := timingBuilds(t)
	f := newFigures(t, builds)
	tabs := make([]context.Context, len(builds))
	for i, b := range builds {
		tabs[i], _ = openBuildPage(t, b, "/#"+frag, screen{})
		waitFor(tabs[i], `document.querySelector('#tree li[data-path="1"]') !== null`)
	}
	sw := `() => document.querySelector(` + jsString(branchButton("1", "branch-switch")) + `).click()`
	for range rounds {
		for i, b := range builds {
			f.add(name, "ms", b, measure(tabs[i], jsString("#text"), sw))
			waitFor(tabs[i], `document.querySelector('#tree-refill') !== null`)
		}
	}
	for i, b := range builds {
		t.Logf("%s%s", b.prefix(), text(tabs[i], "#tree-refill"))
	}
	f.report()
}
