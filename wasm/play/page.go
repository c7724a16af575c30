package play

import (
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// Page is how the page shows its session: choices of the reader's that
// are not the session's, which links carry beside it and Undo leaves
// alone.
type Page struct {
	View  string // the view an embed shows (Views); "all" is everything but the header
	Theme string // one of Themes
	Embed bool   // inside another page: one view, no header

	// EmbedError says, in sentences, why an embed cannot show what its
	// link asks: the link's embed, view or theme is wrong. An embed with
	// one shows it instead of any view; "" for every other page.
	EmbedError string

	Tour int // the guided tour's stop on display, from 1 (Tour); 0 off the tour

	// Present is presentation mode: larger type, only the cards chosen
	// (Shows), the tour's words as a caption. Cards are the ids chosen,
	// of Cards, joined by commas; "" chooses none.
	Present bool
	Cards   string

	Compare   CompareChoice
	Lens      bool // the logit lens card is open
	Recompute bool // the cache-versus-recompute card recomputes the step on display
}

// CompareChoice is what the compare card shows.
type CompareChoice struct {
	Open   bool
	Chains [2]string // package compare's names; "" for the card's default pair
	Own    bool      // llama.cpp and Hugging Face keep their own defaults rather than follow the session's settings
	Draws  bool      // the table shows CompareDraws draws from each chain
}

// CompareDraws is how many tokens the compare card's Sample draws from
// each chain.
const CompareDraws = 1000

// DefaultChains are the chains the compare card opens with.
var DefaultChains = [2]string{compare.Ours, compare.LlamaCpp}

// Views are the parts of the playground a documentation page can embed
// alone (?embed=1&view=…); "all", the first, is everything but the page
// header.
var Views = []string{"all", "softmax", "kv", "tokens", "sampler", "compare", "tree", "timeline"}

// Themes are the colour schemes a page can ask for (?theme=…): auto, the
// first, follows the reader's system.
var Themes = []string{"auto", "light", "dark"}

// DefaultPage is the page with nothing chosen.
func DefaultPage() Page { return Page{View: Views[0], Theme: Themes[0]} }

// LensTop is how many tokens a layer of the logit lens shows.
const LensTop = session.DefaultTop

func (p Page) lensTokens() int {
	if p.Lens {
		return LensTop
	}
	return 0
}

// CompareOpen reports whether the compare card shows its chains: opened,
// or the view an embed shows.
func (p Page) CompareOpen() bool { return p.Compare.Open || p.View == "compare" }

// compareAsked is what the details ask of the compare card's chains:
// nothing while it is closed.
func (p Page) compareAsked() CompareChoice {
	if !p.CompareOpen() {
		return CompareChoice{}
	}
	return CompareChoice{Open: true, Chains: p.CompareChains(), Own: p.Compare.Own, Draws: p.Compare.Draws}
}

// CompareChains are the two chains the compare card runs.
func (p Page) CompareChains() [2]string {
	if p.Compare.Chains == ([2]string{}) {
		return DefaultChains
	}
	return p.Compare.Chains
}

// compareLink is the card as a link carries it: nothing while it is
// closed; its chains, the defaults too, while it is open; none that a link
// cannot hold (letters the card says are wrong).
func (p Page) compareLink() CompareLink {
	if !p.CompareOpen() {
		return CompareLink{}
	}
	c := p.EmbedCompare()
	if c.Chains == ([2]string{}) {
		c.Chains = DefaultChains
	}
	return c
}

// EmbedCompare is what the reader chose on the compare card as a link
// carries it, for the compare view's embed: no chains if they are the
// defaults or wrong.
func (p Page) EmbedCompare() CompareLink {
	c := CompareLink{Chains: p.Compare.Chains, Own: p.Compare.Own}
	if c.check() != nil {
		c.Chains = [2]string{}
	}
	return c
}

// The page's own choices. Each changes what the link says, not the
// session, and is not an action Undo takes back.

// SetCompareOpen opens or closes the compare card.
func (c *Controller) SetCompareOpen(open bool) { c.setPage(func(p *Page) { p.Compare.Open = open }) }

// SetCompareChain sets chain k to a chain of package compare: a preset or
// llama.cpp letters, which the card checks and explains if they are wrong.
func (c *Controller) SetCompareChain(k int, name string) {
	c.setPage(func(p *Page) {
		p.Compare.Chains = p.CompareChains()
		p.Compare.Chains[k] = name
	})
}

// SetCompareOwn makes llama.cpp and Hugging Face keep their own defaults
// (own) or follow the session's settings.
func (c *Controller) SetCompareOwn(own bool) { c.setPage(func(p *Page) { p.Compare.Own = own }) }

// ToggleCompareDraws shows or hides CompareDraws draws from each chain.
func (c *Controller) ToggleCompareDraws() {
	c.setPage(func(p *Page) { p.Compare.Draws = !p.Compare.Draws })
}

// SetLensOpen opens or closes the logit lens card.
func (c *Controller) SetLensOpen(open bool) { c.setPage(func(p *Page) { p.Lens = open }) }

// SetRecompute switches the cache-versus-recompute card's recomputation;
// switched on, it measures the step on display again (times move with
// the machine's load, and this is how a reader takes another reading).
func (c *Controller) SetRecompute(on bool) {
	c.setPage(func(p *Page) {
		if on && !p.Recompute {
			c.rec.key = detailKey{}
		}
		p.Recompute = on
	})
}

func (c *Controller) setPage(change func(*Page)) {
	c.do("", func() {
		change(&c.page)
		c.changed()
	})
}
