//go:build !js

package ui

import (
	"strconv"
	"strings"
	"testing"

	"nexttoken/wasm/play"
)

// The worked example as its textbook states it, to 7 decimals: the
// softmax of ℓ = [-2.1, 0.3, 3.1, 0.8, 0.1, -0.5], its sum, and the cache
// before and after "sat".
var (
	workedP   = []string{"0.0044356", "0.0488946", "0.8040548", "0.0806136", "0.0400315", "0.0219698"}
	workedSum = "1.2436963"
)

// TestWorkedExampleNumbers checks the engine against the worked example's
// numbers, which the tour's words state: what the tour says is the
// engine's, and the engine's is the book's.
func TestWorkedExampleNumbers(t *testing.T) {
	p := page(t, toySpec(0), -1)
	d := p.d()
	for i, want := range workedP {
		if r, ok := d.Row(i); !ok || fixed(r.P, 7) != want {
			t.Errorf("p[%d] = %s (listed: %v), want %s", i, fixed(r.P, 7), ok, want)
		}
	}
	if got := fixed(d.Softmax.Sum, 7); got != workedSum {
		t.Errorf("Σ = %s, want %s", got, workedSum)
	}
}

// TestTourWords walks the tour as a link to each stop opens it: the
// stop's card, its title, its cards lit, and words that state the step's
// own numbers.
func TestTourWords(t *testing.T) {
	for k := 1; k <= len(play.Tour); k++ {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			p := playgroundAt("tour="+strconv.Itoa(k), "")
			s := p.ctl.Snapshot()
			if s.Page.Tour != k {
				t.Fatalf("?tour=%d opens stop %d (notice %q)", k, s.Page.Tour, s.Notice)
			}
			html, text := render(p)
			stop := play.Tour[k-1]
			contains(t, "the page", html, `data-tour-cards="`+strings.Join(stop.Cards, " ")+`"`)
			contains(t, "the page", text, "stop "+strconv.Itoa(k)+" of "+strconv.Itoa(len(play.Tour)), stop.Title)
			d := shownDetail(s)
			if d == nil {
				t.Fatal("no step on display")
			}
			var want []string
			switch k {
			case 1:
				want = []string{"The −2.1000", "cat 0.3000", "sat 3.1000", "on 0.8000", "the 0.1000", "mat −0.5000", "4 numbers", "6 rows"}
			case 2:
				want = append([]string{"m = 3.1000", "Σ = " + workedSum}, workedP...)
			case 3:
				want = []string{"sat (id 2), at p = 0.8040548", "on , had p = 0.0806136"}
			case 4:
				want = []string{"from 2 rows to 3 (The, cat, sat)", "0 to 1, do not change"}
			case 5:
				want = []string{"sat at position 2", "3 rows (The, cat, sat)", "on (id 3), at p = " + fixed(prob(row(d, 3)), 7)}
			case 6:
				m := s.Model()
				want = []string{"stories260K", strconv.Itoa(len(m.Names)) + " tokens", strconv.Itoa(m.KVHeads) + " key-value heads"}
			case 7:
				c := d.Choice
				want = []string{"u = " + fixed(c.Draw.U, 7), "T = 0.8", "p = " + fixed(c.Prob, 7)}
			}
			contains(t, "the tour's words", text, want...)
		})
	}
}

// TestTourCardOff: off the tour, the page offers to start it, and lights
// no card.
func TestTourCardOff(t *testing.T) {
	p := playgroundAt("", "")
	html, text := render(p)
	contains(t, "the page", html, `id="tour-start"`)
	contains(t, "the page", text, "Start here")
	lacks(t, "the page", html, `id="tour-words"`, `data-tour-cards=`)
}

// TestTourWordsOnATypedSession: a stop whose session the reader replaced
// with hand-typed logits says what it cannot show rather than fail.
func TestTourWordsOnATypedSession(t *testing.T) {
	p := page(t, workedSpec, -1)
	s := p.s()
	for k := 1; k <= len(play.Tour); k++ {
		if w := tourWords(k, s); w == "" {
			t.Errorf("stop %d says nothing", k)
		}
	}
}

// TestTourEmbed: an embed of a stop shows the stop's words and each of its
// cards, and no header.
func TestTourEmbed(t *testing.T) {
	for k := 1; k <= len(play.Tour); k++ {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			p := playgroundAt("embed=1&tour="+strconv.Itoa(k), "")
			html, text := render(p)
			contains(t, "the embed", text, play.Tour[k-1].Title)
			for _, id := range play.Tour[k-1].Cards {
				contains(t, "the embed", html, `id="`+id+`"`)
			}
			lacks(t, "the embed", html, `id="prompt"`, `id="share"`)
		})
	}
}

// row is token id's row at step d, whether d holds it or not.
func row(d *play.Detail, id int) play.Row {
	r, _ := d.Row(id)
	return r
}
