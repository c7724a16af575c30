package ui

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/session"
	"nexttoken/wasm/play"
)

// The token popover: one element for the page (tipID), which the strip
// fills on demand with a token's step — written through the hot views'
// paint batch, not a component per chip.
const tipID = "token-tip"

// tipRest is how long the pointer rests on a token before its popover
// shows: long enough that a pointer sweeping across the strip opens
// nothing, short enough to feel at once (a common tooltip's enter delay is
// 100 ms; the browser's own title waits about half a second). Focus shows
// it at once, and a long press (tipPress) on a touch screen.
const (
	tipRest  = 100 // ms
	tipPress = 500 // ms
)

// tipWidth is the popover's width in CSS pixels, at most the viewport's
// less a margin each side (app.css has the same).
const tipWidth = 340

// stepTipHTML is the popover of step i: its token, id, rank and p, and
// the step's most probable tokens with their p as the Probabilities card
// writes it and the sampler stage that removed each.
func stepTipHTML(st session.Step, i int, m *play.Model) string {
	var b strings.Builder
	b.WriteString(`<p class="tip-head">`)
	tag(&b, "strong", "", quote(m.Label(st.Token)))
	b.WriteString(esc(" step " + itoa(i+1) + " · id " + itoa(st.Token) + " · rank " + itoa(st.Rank) + " · p = " + sig(st.Prob)))
	b.WriteString("</p>")
	if st.Forced {
		by := ""
		if st.Choice.Stages != nil || st.Choice.Greedy {
			by = "; the sampler drew " + quote(m.Label(st.Choice.Token))
		}
		tag(&b, "p", `class="tip-note"`, "Forced by hand"+by+".")
	}
	if st.Choice.Greedy {
		tag(&b, "p", `class="tip-note"`, "Greedy (temperature 0): the most probable token is taken; p at T = 1.")
	}
	b.WriteString(`<table class="num tip-table"><tr><th>#</th><th>token</th><th>id</th><th class="p">p</th><th>removed by</th></tr>`)
	for j, c := range st.Top {
		b.WriteString(`<tr`)
		if c.Token == st.Token {
			b.WriteString(` class="chosen" aria-current="true"`)
		}
		b.WriteString(">")
		tag(&b, "td", "", itoa(j+1))
		tag(&b, "th", "", m.Label(c.Token))
		tag(&b, "td", "", itoa(c.Token))
		tag(&b, "td", `class="p"`, sig(c.Prob))
		by := "—"
		if name := st.RemovedBy(c); name != "" {
			by = stageLabel(name)
		}
		tag(&b, "td", "", by)
		b.WriteString("</tr>")
	}
	b.WriteString("</table>")
	if st.Rank > len(st.Top) {
		tag(&b, "p", `class="tip-note"`, "The token taken ranks "+itoa(st.Rank)+", below the "+itoa(len(st.Top))+" listed.")
	}
	return b.String()
}

// promptTipHTML is the popover of a prompt token: it has no alternatives.
func promptTipHTML(id int, m *play.Model) string {
	var b strings.Builder
	b.WriteString(`<p class="tip-head">`)
	tag(&b, "strong", "", quote(m.Label(id)))
	b.WriteString(esc(" id "+itoa(id)) + "</p>")
	tag(&b, "p", `class="tip-note"`, "A prompt token: the prompt went through prefill as given, so it had no alternatives.")
	return b.String()
}

// tipPlace is the popover's inline style next to a token whose box is
// (left, top, bottom) in a viewport w × h: below the token, or above when
// the room below is short and above is larger, its left edge kept on
// screen.
func tipPlace(left, top, bottom, w, h float64) string {
	width := min(tipWidth, w-16)
	x := max(8, min(left, w-8-width))
	px := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) + "px" }
	if h-bottom < 320 && top > h-bottom {
		return "left:" + px(x) + ";bottom:" + px(h-top+6)
	}
	return "left:" + px(x) + ";top:" + px(bottom+6)
}

// tipState is the popover's: what it shows and the rest or press that
// will show it. The page has one popover, kept on the board.
type tipState struct {
	open    bool
	pending int       // counts the rests and presses begun: a timer shows its own only
	anchor  app.Value // the chip it describes, which points at it by aria-describedby
}

// tokenAt is the token an event of the strip is on: a generated chip's
// step, or a prompt chip's token id.
func tokenAt(e app.Event) (n int, prompt bool, chip app.Value, ok bool) {
	if n, chip, ok = listEvent(e, "tok", "step"); ok && !chip.Get("classList").Call("contains", "next").Bool() {
		return n, false, chip, true
	}
	if n, chip, ok = listEvent(e, "tok", "token"); ok {
		return n, true, chip, true
	}
	return 0, false, nil, false
}

func (s *Strip) onOver(ctx app.Context, e app.Event) {
	if e.Get("pointerType").String() == "touch" {
		return // a tap selects; a long press shows the popover
	}
	n, prompt, chip, ok := tokenAt(e)
	if !ok {
		return
	}
	if s.Board.tip.open {
		s.showTip(n, prompt, chip)
		return
	}
	s.later(ctx, tipRest, n, prompt, chip)
}

// onOut hides the popover as the pointer or the focus leaves a token.
func (s *Strip) onOut(ctx app.Context, e app.Event) {
	if to := e.Get("relatedTarget"); to.Truthy() && to.Get("closest").Truthy() && to.Call("closest", "#"+tipID).Truthy() {
		return // into the popover itself
	}
	s.Board.hideTip()
}

func (s *Strip) onFocus(ctx app.Context, e app.Event) {
	if n, prompt, chip, ok := tokenAt(e); ok {
		s.showTip(n, prompt, chip)
	}
}

// onPress shows a token's popover after a long press on a touch screen;
// a tap still selects its step.
func (s *Strip) onPress(ctx app.Context, e app.Event) {
	if e.Get("pointerType").String() != "touch" {
		return
	}
	if n, prompt, chip, ok := tokenAt(e); ok {
		s.later(ctx, tipPress, n, prompt, chip)
	}
}

// onRelease cancels a press too short to show the popover.
func (s *Strip) onRelease(ctx app.Context, e app.Event) {
	if !s.Board.tip.open {
		s.Board.tip.pending++
	}
}

func (s *Strip) onKey(ctx app.Context, e app.Event) {
	if e.Get("key").String() == "Escape" && s.Board.tip.open {
		s.Board.hideTip()
		e.Call("stopPropagation")
	}
}

// onTextMove shows the popover of the token under the pointer in the text
// once the pointer rests there.
func (s *Strip) onTextMove(ctx app.Context, e app.Event) {
	if e.Get("pointerType").String() == "touch" {
		return
	}
	x, y := e.Get("clientX").Float(), e.Get("clientY").Float()
	t := &s.Board.tip
	t.pending++
	pending := t.pending
	ctx.After(tipRest*time.Millisecond, func(ctx app.Context) {
		if t.pending != pending || s.Board.s.Session == nil {
			return
		}
		offset, ok := textOffsetAt(x, y)
		step := -1
		if ok {
			step = stepAtText(s.Board.s.Session.Trace, offset)
		}
		if step < 0 {
			s.Board.hideTip()
			return
		}
		s.Board.paintTip(stepTipHTML(s.Board.s.Session.Trace.Steps[step], step, s.Board.s.Model()), x, y-12, y+12, nil)
	})
}

// later shows a token's popover once ms have passed, unless another rest
// or press began meanwhile.
func (s *Strip) later(ctx app.Context, ms int, n int, prompt bool, chip app.Value) {
	t := &s.Board.tip
	t.pending++
	pending := t.pending
	ctx.After(time.Duration(ms)*time.Millisecond, func(ctx app.Context) {
		if t.pending == pending {
			s.showTip(n, prompt, chip)
		}
	})
}

// showTip shows the popover of step n, or of the prompt token n, by chip.
func (s *Strip) showTip(n int, prompt bool, chip app.Value) {
	b := s.Board
	if b == nil || b.s.Session == nil {
		return
	}
	m, steps := b.s.Model(), b.s.Session.Trace.Steps
	var html string
	switch {
	case prompt:
		html = promptTipHTML(n, m)
	case n >= 0 && n < len(steps):
		html = stepTipHTML(steps[n], n, m)
	default:
		return
	}
	r := chip.Call("getBoundingClientRect")
	b.paintTip(html, r.Get("left").Float(), r.Get("top").Float(), r.Get("bottom").Float(), chip)
}

// paintTip shows html in the popover, placed by a token's box; the chip,
// if any, points at it.
func (b *board) paintTip(html string, left, top, bottom float64, chip app.Value) {
	b.hideTip()
	w, h := app.Window().Size()
	setHTML(tipID, html)
	setStyle(tipID, tipPlace(left, top, bottom, float64(w), float64(h)))
	setVisible(tipID, true)
	flushPaint()
	if chip != nil {
		chip.Call("setAttribute", "aria-describedby", tipID)
	}
	b.tip.open, b.tip.anchor = true, chip
}

// hideTip hides the popover, and cancels one on its way.
func (b *board) hideTip() {
	if b == nil {
		return
	}
	t := &b.tip
	t.pending++
	if t.anchor != nil {
		t.anchor.Call("removeAttribute", "aria-describedby")
		t.anchor = nil
	}
	if t.open {
		t.open = false
		setVisible(tipID, false)
		flushPaint()
	}
}

// stepAtText is the step whose token wrote the UTF-16 code unit at offset
// in the text t.Text, as the browser counts them, or -1 in the prompt's
// text.
func stepAtText(t *session.Trace, offset int) int {
	end := utf16Len(t.Text)
	for i := len(t.Steps) - 1; i >= 0 && offset < end; i-- {
		start := end - utf16Len(t.Steps[i].Piece)
		if offset >= start {
			return i
		}
		end = start
	}
	return -1
}

// utf16Len is how many UTF-16 code units the browser's string of s holds.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
