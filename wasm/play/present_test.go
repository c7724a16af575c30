package play

import (
	"slices"
	"strings"
	"testing"
)

// TestOpenPresent reads presentation mode from links' queries: present
// and cards, in any case, and what is wrong with them in the reader's
// words, with what the page does instead.
func TestOpenPresent(t *testing.T) {
	const cards = "picture, tree, timeline, hidden, logits, softmax, bars, sampler, compare, lens, recompute, kv"
	for _, c := range []struct {
		name  string
		query string
		want  Page
		notes []string
	}{
		{name: "present alone", query: "present=1", want: pageWith(func(p *Page) { p.Present = true })},
		{name: "present=0", query: "present=0", want: DefaultPage()},
		{name: "chosen cards", query: "PRESENT=1&cards=Softmax,%20bars", want: pageWith(func(p *Page) { p.Present, p.Cards = true, "softmax,bars" })},
		{name: "cards= chooses every card", query: "present=1&cards=", want: pageWith(func(p *Page) { p.Present = true })},
		{name: "on a tour stop", query: "present=1&cards=softmax&tour=2", want: pageWith(func(p *Page) { p.Present, p.Cards, p.Tour = true, "softmax", 2 })},
		{name: "present neither 0 nor 1", query: "present=yes&cards=kv", want: DefaultPage(), notes: []string{
			"The link's presentation mode, “yes”, is not 0 or 1, so the page is not in presentation mode.",
			"The link's presentation's cards, “kv”, was left out (only presentation mode (present=1) chooses cards), so the page shows every card."}},
		{name: "a card the page does not have", query: "present=1&cards=softmax,slides", want: pageWith(func(p *Page) { p.Present = true }), notes: []string{
			`The link's presentation's cards, “softmax,slides”, was left out ("slides" is not a card: they are ` + cards + `), so the presentation shows every card.`}},
		{name: "a card twice over, and a comma too many", query: "present=1&cards=kv,,kv", want: pageWith(func(p *Page) { p.Present = true }), notes: []string{
			`The link's presentation's cards, “kv,,kv”, was left out ("" is not a card: they are ` + cards + `), so the presentation shows every card.`}},
	} {
		page, _, notes := openPage(DefaultPage().linkPage(0), c.query)
		if page != c.want || !slices.Equal(notes, c.notes) {
			t.Errorf("%s: openPage = %+v, %q\nwant %+v, %q", c.name, page, notes, c.want, c.notes)
		}
	}
}

// TestShows is which cards the page shows: every card off presentation
// mode; in it, the chosen ones, or the tour stop's when none are chosen.
func TestShows(t *testing.T) {
	for _, c := range []struct {
		name string
		page Page
		want []string
	}{
		{name: "the whole page", page: pageWith(func(p *Page) { p.Cards, p.Tour = "kv", 2 }), want: Cards},
		{name: "presenting every card", page: pageWith(func(p *Page) { p.Present = true }), want: Cards},
		{name: "presenting two", page: pageWith(func(p *Page) { p.Present, p.Cards = true, "bars,softmax" }), want: []string{"softmax", "bars"}},
		{name: "presenting a stop", page: pageWith(func(p *Page) { p.Present, p.Tour = true, 3 }), want: Tour[2].Cards},
		{name: "presenting one card at a stop", page: pageWith(func(p *Page) { p.Present, p.Cards, p.Tour = true, "softmax", 3 }), want: []string{"softmax"}},
	} {
		var shown []string
		for _, id := range Cards {
			if c.page.Shows(id) {
				shown = append(shown, id)
			}
		}
		slices.Sort(shown)
		want := slices.Sorted(slices.Values(c.want))
		if !slices.Equal(shown, want) {
			t.Errorf("%s: shows %v, want %v", c.name, shown, want)
		}
	}
}

// TestPresentLinks makes presentation links from share links, and a
// presenting page's share link, which carries presentation mode.
func TestPresentLinks(t *testing.T) {
	for _, c := range []struct {
		share, cards, want, err string
	}{
		{share: "/#s1.abc", want: "/?present=1#s1.abc"},
		{share: "/?tour=2", cards: "softmax", want: "/?tour=2&present=1&cards=softmax"},
		{share: "/sub/#s1.abc", cards: " Bars , softmax ", want: "/sub/?present=1&cards=bars,softmax#s1.abc"},
		{share: "/#s1.abc", cards: "bars,slide", want: "/#s1.abc", err: `"slide" is not a card: they are ` + strings.Join(Cards, ", ")},
	} {
		got, err := PresentLink(c.share, c.cards)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("PresentLink(%q, %q) = %q, %v; want %q, %q", c.share, c.cards, got, err, c.want, c.err)
		}
	}

	// A presenting page's share link keeps it, and reopens as it was.
	r := newRig(t, toy())
	r.c.OpenAddress("present=1&cards=KV,bars&tour=2", "")
	r.settle()
	if got, want := r.c.ShareLink(), "/?tour=2&present=1&cards=kv,bars"; got != want {
		t.Errorf("the share link of a presented stop is %s, want %s", got, want)
	}
	r.c.Step()
	r.settle()
	share := r.c.ShareLink()
	if !strings.HasPrefix(share, "/?present=1&cards=kv,bars#s1.") {
		t.Fatalf("the share link of a presented session is %s", share)
	}
	page := r.c.page
	again := newRig(t, toy())
	q, frag, _ := strings.Cut(strings.TrimPrefix(share, "/?"), "#")
	again.c.OpenAddress(q, frag)
	again.settle()
	if again.c.page != page || again.c.ShareLink() != share {
		t.Errorf("%s reopens as page %+v, link %s; want %+v", share, again.c.page, again.c.ShareLink(), page)
	}
}
