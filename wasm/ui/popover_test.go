//go:build !js

package ui

import (
	"regexp"
	"strconv"
	"testing"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// TestStepTip checks the token popover of steps taken with filters, by
// hand and greedily: ten rows, each token's p as the Probabilities card
// writes it and the stage that removed it as that card says from the
// step's full Detail, the token taken marked.
func TestStepTip(t *testing.T) {
	row := regexp.MustCompile(`<tr( class="chosen" aria-current="true")?><td>(\d+)</td><th>([^<]*)</th><td>(\d+)</td><td class="p">([^<]*)</td><td>([^<]*)</td></tr>`)
	for _, tc := range []struct {
		name  string
		set   sampler.Settings
		force bool
		notes []string
	}{
		{"top-k and top-p", sampler.Settings{Temperature: 1, TopK: 4, TopP: 0.9, Seed: 3}, false, nil},
		{"forced", sampler.Settings{Temperature: 1, TopK: 4, Seed: 3}, true, []string{"Forced by hand; the sampler drew “"}},
		{"greedy", sampler.DefaultSettings(), false, []string{"Greedy (temperature 0)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := page(t, session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: tc.set, Steps: 6}, 4)
			if tc.force {
				p.ctl.Force(4, 300)
				p.ctl.Select(4)
			}
			s, d := p.s(), p.d()
			st := s.Session.Trace.Steps[4]
			html := tipHTML(s, "step", 4)
			text := htmlText(html)
			contains(t, "popover head", text, "“"+s.Model().Label(st.Token)+"” step 5 · id "+itoa(st.Token)+" · rank "+itoa(st.Rank)+" · p = "+sig(st.Prob))
			contains(t, "popover notes", text, tc.notes...)
			rows := row.FindAllStringSubmatch(html, -1)
			if len(rows) != 10 {
				t.Fatalf("%d rows, want 10:\n%s", len(rows), html)
			}
			chosen, removed := 0, 0
			for j, r := range rows {
				id, _ := strconv.Atoi(r[4]) // digits, as the pattern reads them
				if r[2] != itoa(j+1) || r[3] != esc(s.Model().Label(id)) {
					t.Errorf("row %d: %q %q", j+1, r[2], r[3])
				}
				card, ok := d.Row(id)
				if want := sig(card.P); r[5] != want || !ok {
					t.Errorf("row %d (token %d): p %s, the Probabilities card %s (listed: %v)", j+1, id, r[5], want, ok)
				}
				want := "—"
				if card.RemovedBy > 0 {
					want = stageLabel(d.Choice.Stages[card.RemovedBy-1].Name)
					removed++
				}
				if r[6] != esc(want) {
					t.Errorf("row %d (token %d): removed by %q, the Probabilities card says %q", j+1, id, r[6], want)
				}
				if (r[1] != "") != (id == st.Token) {
					t.Errorf("row %d (token %d): marked chosen %v, the step took %d", j+1, id, r[1] != "", st.Token)
				}
				if r[1] != "" {
					chosen++
				}
			}
			if tc.set.Temperature > 0 && removed == 0 {
				t.Error("no token of ten removed by top-k 4")
			}
			if chosen != 1 && st.Rank <= 10 {
				t.Errorf("%d rows marked chosen, want 1", chosen)
			}
		})
	}
}

// TestTipHTML: what web/paint.js asks for, by a step, a prompt token and
// a place in the text.
func TestTipHTML(t *testing.T) {
	p := page(t, toySpec(2), -1)
	s := p.s()
	contains(t, "prompt popover", htmlText(tipHTML(s, "prompt", 1)), "“cat” id 1", "A prompt token")
	contains(t, "greedy", htmlText(tipHTML(s, "step", 0)), "Greedy (temperature 0)")
	contains(t, "step popover", htmlText(tipHTML(s, "step", 1)), "“on” step 2 ")
	// "The cat sat on": " on" is step 2's, from offset 11.
	contains(t, "text popover", htmlText(tipHTML(s, "text", 12)), "“on” step 2 ")
	for _, n := range []int{-1, 2, 99} {
		if html := tipHTML(s, "step", n); html != "" {
			t.Errorf("step %d, which is not taken, has a popover: %s", n, html)
		}
	}
	if html := tipHTML(s, "text", 2); html != "" {
		t.Errorf("the prompt's text has a step's popover: %s", html)
	}
}

// TestStepAtText maps a place in the text to the step whose token wrote
// it, in UTF-16 code units as the browser counts them.
func TestStepAtText(t *testing.T) {
	tr := &session.Trace{Text: "Hi é😀 yo", Steps: []session.Step{{Piece: " é"}, {Piece: "😀"}, {Piece: " yo"}}}
	for offset, want := range []int{-1, -1, 0, 0, 1, 1, 2, 2, 2, -1} {
		if got := stepAtText(tr, offset); got != want {
			t.Errorf("offset %d: step %d, want %d", offset, got, want)
		}
	}
}
