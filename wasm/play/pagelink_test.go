package play

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/session"
)

// opened is the compare card a link with c opens.
func opened(c CompareLink) CompareChoice {
	return CompareChoice{Open: c != CompareLink{}, Chains: c.Chains, Own: c.Own}
}

// pageWith is DefaultPage changed by edit.
func pageWith(edit func(p *Page)) Page {
	p := DefaultPage()
	edit(&p)
	return p
}

// TestOpenPage reads the page's part of addresses: the share link's, with
// the query's parameters over it. A part that does not read is left out,
// with a sentence that says so.
func TestOpenPage(t *testing.T) {
	hfOwn := CompareLink{Chains: [2]string{"chain", "hf"}, Own: true}
	shared := link.Page{View: "kv", At: 3, Records: hfOwn.records()}
	const allViews = "all, softmax, kv, tokens, sampler, compare, tree, timeline"
	for _, c := range []struct {
		name   string
		shared link.Page
		query  string
		want   Page
		at     int
		notes  []string
	}{
		{name: "nothing", want: DefaultPage()},
		{name: "the share link's", shared: shared, at: 3,
			want: pageWith(func(p *Page) { p.View, p.Compare = "kv", opened(hfOwn) })},
		{name: "the query's over the share link's", shared: shared, query: "VIEW=tokens&at=2&compare=RunC,kt&compare_own=0", at: 2,
			want: pageWith(func(p *Page) { p.View, p.Compare = "tokens", opened(CompareLink{Chains: [2]string{"runc", "kt"}}) })},
		{name: "embed and theme", query: "embed=1&Theme=dark&theme_x=1",
			want: pageWith(func(p *Page) { p.Embed, p.Theme = true, "dark" })},
		{name: "embed=0", query: "embed=0&view=nope", want: DefaultPage(),
			notes: []string{"The link's view, “nope”, is not one of " + allViews + ", so the page shows every view."}},
		{name: "compare_own=1 alone opens the card", query: "compare_own=1",
			want: pageWith(func(p *Page) { p.Compare = CompareChoice{Open: true, Own: true} })},
		{name: "compare_own=0 alone does not", query: "compare_own=0", want: DefaultPage()},
		{name: "view= and theme= are the page's choice", shared: link.Page{View: "kv"}, query: "view=&theme=", want: DefaultPage()},
		{name: "a newer page's records", shared: link.Page{Records: []link.Record{{Tag: 3, Body: "x"}, {Tag: 31}}}, want: DefaultPage()},

		{name: "a view the page does not have", query: "view=nope", want: DefaultPage(),
			notes: []string{"The link's view, “nope”, is not one of " + allViews + ", so the page shows every view."}},
		{name: "an embed of a view the page does not have", query: "embed=1&view=nope", want: pageWith(func(p *Page) {
			p.Embed, p.EmbedError = true, "The link's view, “nope”, is not one of "+allViews+". "+embedShowsNothing
		})},
		{name: "an embed in a theme the page does not have, and a step that is not", query: "embed=1&theme=purple&at=x", want: pageWith(func(p *Page) {
			p.Embed, p.EmbedError = true, "The link's theme, “purple”, is not one of auto, light, dark. "+embedShowsNothing
		}), notes: []string{"The link's step on display, “x”, is not a whole number, so the page shows the next step."}},
		{name: "embed other than 0 or 1", query: "embed=yes", want: pageWith(func(p *Page) {
			p.Embed, p.EmbedError = true, "The link's embed, “yes”, is not 0 or 1. "+embedShowsNothing
		})},
		{name: "the share link's view, which the page does not have", shared: link.Page{View: "kvx"}, query: "view=tokens",
			want:  pageWith(func(p *Page) { p.View = "tokens" }),
			notes: []string{"The link's view, “kvx”, is not one of " + allViews + ", so the view is tokens."}},
		{name: "a theme the page does not have", query: "theme=purple", want: DefaultPage(),
			notes: []string{"The link's theme, “purple”, is not one of auto, light, dark, so the page follows the system's colours."}},
		{name: "at 0", query: "at=0", want: DefaultPage(),
			notes: []string{"The link's step on display, “0”, is not a step: they are numbered from 1, so the page shows the next step."}},
		{name: "at not a number, over the share link's", shared: link.Page{At: 4}, query: "at=x", want: DefaultPage(), at: 4,
			notes: []string{"The link's step on display, “x”, is not a whole number, so the page shows step 4."}},
		{name: "at twice", query: "at=9&AT=1", want: DefaultPage(),
			notes: []string{"The link's step on display, “1”, was left out (given more than once), so the page shows the next step."}},
		{name: "one chain", query: "compare=chain", want: DefaultPage(),
			notes: []string{"The link's compare card, “chain”, is not two chains separated by a comma, so the compare card shows its default chains."}},
		{name: "no chains", query: "compare=,", want: DefaultPage(),
			notes: []string{`The link's compare card, “,”, was left out (chain "" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, nor a llama.cpp letter sequence), so the compare card shows its default chains.`}},
		{name: "a chain the card does not run, over the share link's", shared: link.Page{Records: hfOwn.records()}, query: "compare=chain,KT",
			want: pageWith(func(p *Page) { p.Compare = opened(hfOwn) }),
			notes: []string{`The link's compare card, “chain,KT”, was left out (chain "KT" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, ` +
				`nor a llama.cpp letter sequence such as edskypmxt: samplers: unknown letter 'K' in "KT"), so the compare card shows chain and hf.`}},
		{name: "own defaults neither 0 nor 1", query: "compare_own=yes", want: DefaultPage(),
			notes: []string{"The link's compare card's defaults, “yes”, is not 0 or 1, so llama.cpp and Hugging Face follow the session's settings."}},
		{name: "a stray %", query: "compare=chain,hf%&embed=1&embed=1", want: pageWith(func(p *Page) {
			p.Embed, p.EmbedError = true, "The link's embed, “1”, cannot be used (given more than once). "+embedShowsNothing
		}), notes: []string{
			"The link's compare card, “chain,hf%”, has a % that starts no escape (a percent sign is %25), so the compare card shows its default chains."}},
		{name: "a record cut short", shared: link.Page{Records: []link.Record{{Tag: tagCompare, Body: "\x05chain"}}}, want: DefaultPage(),
			notes: []string{"The link's compare card is damaged, so the compare card shows its default chains."}},
		{name: "a record's own defaults 2", shared: link.Page{Records: []link.Record{{Tag: tagCompare, Body: "\x00\x00\x02"}}}, want: DefaultPage(),
			notes: []string{"The link's compare card is damaged, so the compare card shows its default chains."}},
		{name: "a record with a byte more", shared: link.Page{Records: []link.Record{{Tag: tagCompare, Body: "\x00\x00\x01\x00"}}}, want: DefaultPage(),
			notes: []string{"The link's compare card is damaged, so the compare card shows its default chains."}},
		{name: "a record's chain the card does not run", shared: link.Page{Records: CompareLink{Chains: [2]string{"chain", "kq"}}.records()}, want: DefaultPage(),
			notes: []string{`The link's compare card, “chain,kq”, was left out (chain "kq" is none of chain, runc, llama.cpp, mirostat, mirostat2, hf, ` +
				`nor a llama.cpp letter sequence such as edskypmxt: samplers: unknown letter 'q' in "kq"), so the compare card shows its default chains.`}},
	} {
		page, at, notes := openPage(c.shared, c.query)
		if page != c.want || at != c.at || !slices.Equal(notes, c.notes) {
			t.Errorf("%s: openPage = %+v, at %d, %q\nwant %+v, at %d, %q", c.name, page, at, notes, c.want, c.at, c.notes)
		}
	}
}

// TestCompareRecord writes the compare card's record and reads it back.
func TestCompareRecord(t *testing.T) {
	for _, c := range []CompareLink{
		{Own: true},
		{Chains: [2]string{"chain", "hf"}},
		{Chains: [2]string{"edskypmxt", strings.Repeat("k", 32)}, Own: true},
	} {
		r := c.records()
		if len(r) != 1 || r[0].Tag != tagCompare {
			t.Fatalf("%+v: records %+v", c, r)
		}
		if got, err := readCompare(r[0].Body); got != c || err != nil {
			t.Errorf("%+v: read back %+v, %v", c, got, err)
		}
	}
	if r := (CompareLink{}).records(); r != nil {
		t.Errorf("the zero card has records %+v", r)
	}
}

// TestRecordedPages opens share links that the page made: each opens the
// page it was made of, whose share link is the same, byte for byte.
func TestRecordedPages(t *testing.T) {
	for _, c := range []struct {
		link  string
		view  string
		card  CompareLink // the card's link
		shown int
	}{
		{"/#s1.BAN0b3kHVGhlIGNhdANhbGwDBWNoYWluAAAAAAAAAAIAKgAAAAI", "all", CompareLink{}, 1},
		{"/#s1.CAZsb2dpdHMAB2NvbXBhcmUABWNoYWluBAAAAAAGAQIAKgMBYQFiAWMEAAIAAAAAAAEBCgVjaGFpbgJoZgE", "compare",
			CompareLink{Chains: [2]string{"chain", "hf"}, Own: true}, 0},
		{"/#s1.DAtzdG9yaWVzMjYwSxBPbmNlIHVwb24gYSB0aW1lA2FsbAUFY2hhaW4QAQAAAAAAAgADAAAAAwEBCQRydW5jAmt0AA", "all",
			CompareLink{Chains: [2]string{"runc", "kt"}}, 2},
		{"/#s1.CAN0b3kHVGhlIGNhdAZ0b2tlbnMCBWNoYWluAAAAAAAAAAIAKgAAAAEBEQVjaGFpbglsbGFtYS5jcHAA", "tokens",
			CompareLink{Chains: DefaultChains}, 2},
		{"/#s1.CAN0b3kHVGhlIGNhdANhbGwABWNoYWluAAAAAAAAAAIAKgAAAAEBEQVjaGFpbglsbGFtYS5jcHAB", "all",
			CompareLink{Chains: DefaultChains, Own: true}, 0},
		{"/#s1.DAN0b3kHVGhlIGNhdAJrdgEFY2hhaW4AAAAAAAAAAgAqAAAAAQEBEQVjaGFpbglsbGFtYS5jcHAB", "kv",
			CompareLink{Chains: DefaultChains, Own: true}, 0},
	} {
		r := newRig(t, toy())
		r.c.OpenAddress("", strings.TrimPrefix(c.link, "/#"))
		r.settle()
		if got := r.c.ShareLink(); got != c.link || r.c.notice != "" {
			t.Errorf("%s reopens as %s, notice %q", c.link, got, r.c.notice)
		}
		if r.c.page.View != c.view || r.c.page.compareLink() != c.card || r.c.shown != c.shown {
			t.Errorf("%s opens view %s, card %+v, step %d; want %s, %+v, %d", c.link, r.c.page.View, r.c.page.compareLink(), r.c.shown, c.view, c.card, c.shown)
		}
	}
}

// fiveStepsAtFive is the fragment of a link to the toy's session of 5
// steps, showing its fifth.
func fiveStepsAtFive(t *testing.T) string {
	five := link.State{Spec: toy(), Page: link.Page{At: 5}}
	five.Spec.Steps = 5
	frag, err := link.Encode(five)
	if err != nil {
		t.Fatal(err)
	}
	return frag
}

// TestStepPastTheLast opens links whose step on display the session does
// not have: the page shows its last, and says so.
func TestStepPastTheLast(t *testing.T) {
	frag := fiveStepsAtFive(t)
	for _, c := range []struct {
		query, fragment string
		shown           int
		notice          string
	}{
		{"steps=3&at=9", "", 2, "The link shows step 9, but its session has 3, so the page shows step 3, its last."},
		{"at=9", "", 0, "The link shows step 9, but its session has no steps, so the page shows the next step."},
		{"steps=3&at=3", "", 2, ""},
		{"steps=1", frag, 0, "The link shows step 5, but its session has 1, so the page shows step 1, its last."},
		{"", frag, 4, ""},
	} {
		r := newRig(t, toy())
		r.c.OpenAddress(c.query, c.fragment)
		r.settle()
		if r.c.shown != c.shown || r.c.notice != c.notice {
			t.Errorf("%q #%s: step %d, notice %q; want %d, %q", c.query, c.fragment, r.c.shown, r.c.notice, c.shown, c.notice)
		}
	}
}

// TestEmbedLinkTheme: an embed link carries the theme it is given unless
// it is auto, the default, and opens as an embed of its view in that
// theme.
func TestEmbedLinkTheme(t *testing.T) {
	for _, c := range []struct {
		theme, want string
		inLink      bool
	}{
		{"", "auto", false},
		{"auto", "auto", false},
		{"light", "light", true},
		{"dark", "dark", true},
	} {
		for _, spec := range []session.Spec{toy(), worked()} {
			got := EmbedLink("/sub/", spec, "tokens", c.theme, CompareLink{})
			u, err := url.Parse(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(got, "theme=") != c.inLink {
				t.Errorf("theme %q: the link %s", c.theme, got)
			}
			page, _, notes := openPage(link.Page{}, u.RawQuery)
			if !page.Embed || page.View != "tokens" || page.Theme != c.want || page.EmbedError != "" || len(notes) != 0 {
				t.Errorf("theme %q: %s opens %+v, %q; want an embed of tokens in theme %s", c.theme, got, page, notes, c.want)
			}
		}
	}
}

// TestEmbedded: Embedded says of a query what openPage makes of it.
func TestEmbedded(t *testing.T) {
	for _, q := range []string{"", "embed=1", "embed=0", "EMBED=1", "embed=yes", "embed=1&embed=1", "embed=%zz",
		"embed=1&view=kv", "view=kv", "embedx=1", "model=toy&Embed=0"} {
		page, _, _ := openPage(link.Page{}, q)
		if got := Embedded(q); got != page.Embed {
			t.Errorf("Embedded(%q) = %v, openPage says %v", q, got, page.Embed)
		}
	}
}

// TestOpenAddressAndStep: the steps the reader took on the server's page
// before the program started are taken again once the link's session
// opens, with an engine that answers at once or later: the session is the
// one the link with those steps opens, and Undo takes them back one by one.
func TestOpenAddressAndStep(t *testing.T) {
	for _, tc := range []struct{ from, stepped string }{
		{"", "steps=3"},
		{"model=stories260K&prompt=Once&temperature=0.9&seed=7", "model=stories260K&prompt=Once&temperature=0.9&seed=7&steps=3"},
		{"model=toy&steps=2", "model=toy&steps=5"},
	} {
		for _, eng := range []Engine{engineOf(&Local{Load: load}), &later{eng: engineOf(&Local{Load: load})}} {
			want := newRig(t, toy())
			want.c.OpenAddress(tc.stepped, "")
			want.settle()
			r := newRigOn(t, eng, toy())
			r.c.OpenAddressAndStep(tc.from, 3)
			r.settle()
			if r.c.sum.Spec.Model != want.c.sum.Spec.Model || r.text() != want.text() || r.c.shown != want.c.shown {
				t.Errorf("%q and 3 steps (%T): %q at step %d; %q opens %q at step %d", tc.from, eng, r.text(), r.c.shown, tc.stepped, want.text(), want.c.shown)
			}
			steps := r.c.sum.Steps()
			for range 3 {
				r.c.Undo()
				r.settle()
			}
			if got := r.c.sum.Steps(); got != steps-3 || r.snap().CanUndo {
				t.Errorf("%q and 3 steps (%T): three Undos leave %d steps of %d, and Undo on: %v", tc.from, eng, got, steps, r.snap().CanUndo)
			}
		}
	}
	// A model on its way: the page shows the default session meanwhile, and
	// the steps wait for the link's.
	fetched := false
	eng := &Local{Load: func(name string) (*session.Model, error) {
		if name == "stories260K" && !fetched {
			return nil, errors.New("not here yet")
		}
		return load(name)
	}}
	r := newRigOn(t, engineOf(eng), toy())
	r.host.fetching = true
	r.c.OpenAddressAndStep("model=stories260K&prompt=Once", 2)
	r.settle()
	if r.c.sum.Spec.Model != "toy" || r.c.sum.Steps() != 0 || r.host.retry == nil {
		t.Fatalf("while the model is on its way: %s with %d steps", r.c.sum.Spec.Model, r.c.sum.Steps())
	}
	fetched = true
	r.host.retry()
	r.settle()
	if r.c.sum.Spec.Model != "stories260K" || r.c.sum.Steps() != 2 {
		t.Errorf("once the model is in: %s with %d steps, want stories260K with 2", r.c.sum.Spec.Model, r.c.sum.Steps())
	}
}

// TestThreadsAsked checks the threads a link asks for: a number from 1 to
// MaxThreads, and 0 for none, another word or a number out of range,
// whatever another part of the link is.
func TestThreadsAsked(t *testing.T) {
	for _, c := range []struct {
		query string
		want  int
	}{
		{"", 0}, {"threads=2", 2}, {"model=toy&threads=1", 1}, {"threads=8", 8},
		{"threads=9", 0}, {"threads=0", 0}, {"threads=-2", 0}, {"threads=two", 0}, {"threads=2&threads=3", 2},
		{"prompt=%zz&threads=4", 4},
	} {
		if got := ThreadsAsked(c.query); got != c.want {
			t.Errorf("%q: %d threads, want %d", c.query, got, c.want)
		}
	}
}

// TestReadThenOpen: an address read (ReadAddress) and opened later
// (OpenRead), as the page does with a task between, opens the page,
// session, step and notice that OpenAddress opens at once: a link with
// steps and a step on display, one with values left out, a tour stop, an
// embed, and a link to a model the page does not hold.
func TestReadThenOpen(t *testing.T) {
	frag := fiveStepsAtFive(t)
	for _, c := range []struct{ query, fragment string }{
		{"steps=3&at=9", ""},
		{"model=stories260K&temperature=abc&steps=3&at=2", ""},
		{"", frag},
		{"tour=2", ""},
		{"model=stories260K&embed=1&view=tokens&theme=dark", ""},
		{"model=nowhere&steps=2", ""},
	} {
		want := newRig(t, toy())
		want.c.OpenAddress(c.query, c.fragment)
		want.settle()
		r := newRig(t, toy())
		a := ReadAddress(c.query, c.fragment)
		r.c.OpenRead(a)
		r.settle()
		if got, w := r.snap(), want.snap(); r.text() != want.text() || got.Page != w.Page || r.c.shown != want.c.shown || r.c.notice != want.c.notice {
			t.Errorf("%q #%s: read then opened, %q at step %d, page %+v, notice %q; OpenAddress %q at step %d, page %+v, notice %q",
				c.query, c.fragment, r.text(), r.c.shown, got.Page, r.c.notice, want.text(), want.c.shown, w.Page, want.c.notice)
		}
	}
}
