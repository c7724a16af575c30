package ui

import (
	"strings"
	"unicode/utf16"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// The token popover is one element for the page (tipID), which the
// strip renders empty. web/paint.js shows it, beside the token under the
// pointer or with the focus, and fills it with tipHTML: the page's
// handlers of a pointer's every move, focus, keys and presses live there,
// where they cost the program no bytes and no call into it but the one
// that asks for the content.
const tipID = "token-tip"

// tipRest is how long the pointer rests on a token, a chip or a place in
// the text, before its popover shows: long enough that a pointer sweeping
// across the strip opens nothing, short enough to feel at once (a common
// tooltip's enter delay is 100 ms; the browser's own title waits about
// half a second). A chip's focus from the keyboard (not a click's) shows
// it at once, and a long press of tipPress on a touch screen, where a tap
// selects the step. Leaving the token or the popover, Escape, or a press
// elsewhere hides it. The strip hands both times to web/paint.js
// (data-rest, data-press).
const (
	tipRest  = 100 // ms
	tipPress = 500 // ms
)

// tipHTML is the popover's content for a token of the page's strip, as
// web/paint.js asks for it, or "" for none: of step n (kind "step"), of
// the step that wrote the text at UTF-16 offset n ("text"), or of the
// prompt token of id n ("prompt"), which had no alternatives. A step's
// says its token, id, rank and p, and lists the step's most probable
// tokens with their p as the Probabilities card writes it and the sampler
// stage that removed each.
func tipHTML(s play.Snapshot, kind string, n int) string {
	if s.Session == nil {
		return ""
	}
	m, steps := s.Model(), s.Session.Trace.Steps
	if kind == "text" {
		n = stepAtText(s.Session.Trace, n)
	}
	var b strings.Builder
	b.WriteString(`<p class="tip-head">`)
	if kind == "prompt" {
		tag(&b, "strong", "", quote(m.Label(n)))
		b.WriteString(esc(" id "+itoa(n)) + "</p>")
		tag(&b, "p", `class="tip-note"`, "A prompt token: the prompt went through prefill as given, so it had no alternatives.")
		return b.String()
	}
	if n < 0 || n >= len(steps) {
		return ""
	}
	st := steps[n]
	tag(&b, "strong", "", quote(m.Label(st.Token)))
	b.WriteString(esc(" step "+itoa(n+1)+" · id "+itoa(st.Token)+" · rank "+itoa(st.Rank)+" · p = "+sig(st.Prob)) + "</p>")
	var notes []string
	switch {
	case st.Forced && (st.Choice.Draw != nil || st.Choice.Greedy):
		notes = append(notes, "Forced by hand; the sampler drew "+quote(m.Label(st.Choice.Token))+".")
	case st.Forced: // every token was masked: the sampler could not draw
		notes = append(notes, "Forced by hand.")
	}
	if st.Choice.Greedy {
		notes = append(notes, "Greedy (temperature 0): the most probable token is taken; p at T = 1.")
	}
	if st.Rank > len(st.Top) {
		notes = append(notes, "The token taken ranks "+itoa(st.Rank)+", below the "+itoa(len(st.Top))+" listed.")
	}
	for _, note := range notes {
		tag(&b, "p", `class="tip-note"`, note)
	}
	b.WriteString(`<table class="num tip-table"><tr><th>#</th><th>token</th><th>id</th><th class="p">p</th><th>removed by</th></tr>`)
	for j, c := range st.Top {
		by, chosen := "—", ""
		if c.Removed > 0 {
			by = stageLabel(st.Choice.Stages[c.Removed-1].Name)
		}
		if c.Token == st.Token {
			chosen = ` class="chosen" aria-current="true"`
		}
		b.WriteString("<tr" + chosen + "><td>" + itoa(j+1) + "</td><th>" + esc(m.Label(c.Token)) + "</th><td>" + itoa(c.Token) +
			`</td><td class="p">` + sig(c.Prob) + "</td><td>" + esc(by) + "</td></tr>")
	}
	b.WriteString("</table>")
	return b.String()
}

// stepAtText is the step whose token wrote the UTF-16 code unit at offset
// in the text t.Text, as the browser counts them, or -1 in the prompt's
// text.
func stepAtText(t *session.Trace, offset int) int {
	end := len(utf16.Encode([]rune(t.Text)))
	for i := len(t.Steps) - 1; i >= 0 && offset < end; i-- {
		end -= len(utf16.Encode([]rune(t.Steps[i].Piece)))
		if offset >= end {
			return i
		}
	}
	return -1
}
