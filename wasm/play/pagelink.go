package play

import (
	"encoding/binary"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/link"
	"nexttoken/engine/sampler/compare"
)

// The page's part of a link, as the package documentation lays it out:
// package link carries it (link.Page) and hands over the page's query
// parameters as given (link.PageParams); what they mean is here.

// pageParams are the page's query parameters, in the order it reads them.
var pageParams = []string{"embed", "theme", "view", "at", "compare", "compare_own", tourParam, presentParam, cardsParam}

// tagCompare is the tag of the compare card's record in a share link.
const tagCompare = 1

// CompareLink is the compare card as a link carries it. The zero value
// says nothing of the card, which opens as the page opens it; any other
// opens it.
type CompareLink struct {
	// Chains are the two chains side by side, by package compare's names:
	// a preset, or llama.cpp letters such as "kt". Both are "" for the
	// card's default pair, or neither is.
	Chains [2]string
	Own    bool // llama.cpp and Hugging Face keep their own defaults rather than follow the session's settings
}

// check applies a link's rules to c's chains: ones compare.Preset
// accepts, both or neither given. It spells a preset as package compare
// does.
func (c *CompareLink) check() error {
	if c.Chains == ([2]string{}) {
		return nil
	}
	for k, name := range c.Chains {
		var err error
		if c.Chains[k], err = chainName(name); err != nil {
			return err
		}
	}
	return nil
}

// chainName returns package compare's spelling of the chain v names: a
// preset in any case, or llama.cpp letters as given.
func chainName(v string) (string, error) {
	for _, n := range compare.Names {
		if strings.EqualFold(v, n) {
			return n, nil
		}
	}
	if v == "" { // compare.Preset would take it for llama.cpp without a stage
		return "", errors.New(`chain "" is none of ` + strings.Join(compare.Names, ", ") + ", nor a llama.cpp letter sequence")
	}
	if _, err := compare.Preset(v, 0); err != nil {
		return "", err
	}
	return v, nil
}

// records are c's records in a share link: none for the zero value, else
// one of tag 1, whose fields are written as a share link writes its own:
// chain A and chain B as strings (a length as an unsigned varint, then
// the bytes), own defaults as an unsigned varint, 0 or 1.
func (c CompareLink) records() []link.Record {
	if c == (CompareLink{}) {
		return nil
	}
	var b []byte
	for _, chain := range c.Chains {
		b = binary.AppendUvarint(b, uint64(len(chain)))
		b = append(b, chain...)
	}
	own := uint64(0)
	if c.Own {
		own = 1
	}
	return []link.Record{{Tag: tagCompare, Body: string(binary.AppendUvarint(b, own))}}
}

// errDamaged is the error of a record whose fields do not read.
var errDamaged = errors.New("damaged")

// readCompare reads the compare card's record, all of body. A record whose
// fields read but whose chains are not ones the card runs is a
// *link.ParamError of parameter compare.
func readCompare(body string) (CompareLink, error) {
	b := []byte(body)
	uint := func() (uint64, bool) {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return x, true
	}
	str := func() (string, bool) {
		n, ok := uint()
		if !ok || n > uint64(len(b)) {
			return "", false
		}
		s := string(b[:n])
		b = b[n:]
		return s, true
	}
	a, okA := str()
	z, okZ := str()
	own, okOwn := uint()
	if !okA || !okZ || !okOwn || own > 1 || len(b) > 0 {
		return CompareLink{}, errDamaged
	}
	c := CompareLink{Chains: [2]string{a, z}, Own: own == 1}
	if err := c.check(); err != nil {
		return CompareLink{}, &link.ParamError{Param: "compare", Value: a + "," + z, Reason: err.Error()}
	}
	return c, nil
}

// query adds c's parameters to a readable link's query q.
func (c CompareLink) query(q url.Values) {
	if c.Chains != ([2]string{}) {
		q.Set("compare", c.Chains[0]+","+c.Chains[1])
	}
	if c.Own {
		q.Set("compare_own", "1")
	}
}

// linkPage is p's part of a share link, with the step on display at
// (numbered from 1; 0 for the next step).
func (p Page) linkPage(at int) link.Page {
	return link.Page{View: p.View, At: at, Records: append(p.compareLink().records(), p.tourRecords()...)}
}

// Embedded reports whether the link rawQuery opens the page as an embed,
// as openPage reads it: embed given and not 0 (a bad value too, so that
// the frame says what is wrong). A share link's fragment never makes one.
func Embedded(rawQuery string) bool {
	values, bad := link.PageParams(rawQuery, "embed")
	v, given := values["embed"]
	return given && v != "0" || slices.ContainsFunc(bad, func(pe *link.ParamError) bool { return pe.Param == "embed" })
}

// openPage reads the page's part of an address: shared, a share link's
// (the zero link.Page without one), then the page's parameters of
// rawQuery over it. It returns the page, the step on display (numbered
// from 1; 0 for the next step), and a sentence for each part left out.
func openPage(shared link.Page, rawQuery string) (page Page, at int, notes []string) {
	page, at = DefaultPage(), shared.At
	var card CompareLink
	var bad []*link.ParamError
	var damaged bool
	if shared.View != "" {
		if err := oneOf(shared.View, Views); err != nil {
			bad = append(bad, &link.ParamError{Param: "view", Value: shared.View, Reason: err.Error()})
		} else {
			page.View = shared.View
		}
	}
	// readable sorts a record's error: one whose fields read but say what
	// the page cannot show is a parameter left out; another, damage.
	readable := func(err error) bool {
		var pe *link.ParamError
		if errors.As(err, &pe) {
			bad = append(bad, pe)
			return true
		}
		return err == nil
	}
	for _, r := range shared.Records {
		switch r.Tag {
		case tagCompare:
			c, err := readCompare(r.Body)
			damaged = !readable(err) || damaged
			card = c
		case tagTour:
			k, err := readTour(r.Body)
			if !readable(err) {
				notes = append(notes, "The link's tour stop is damaged, so the page is not on the tour.")
			}
			page.Tour = k
		} // a record of another tag is a newer page's, for what this page cannot show
	}

	values, more := link.PageParams(rawQuery, pageParams...)
	bad = append(bad, more...)
	for _, name := range pageParams {
		v, given := values[name]
		if !given {
			continue
		}
		var err error
		switch name {
		case "embed":
			page.Embed, err = link.ParseBool(v)
		case "theme":
			err = choose(&page.Theme, v, Themes)
		case "view":
			err = choose(&page.View, v, Views)
		case "at":
			at, err = readAt(v, at)
		case "compare":
			card.Chains, err = readChains(v, card.Chains)
		case "compare_own":
			var own bool
			if own, err = link.ParseBool(v); err == nil {
				card.Own = own
			}
		case tourParam:
			page.Tour, err = readTourParam(v, page.Tour)
		case presentParam:
			page.Present, err = link.ParseBool(v)
		case cardsParam:
			page.Cards, err = readCards(v, page.Cards)
		}
		if err != nil {
			bad = append(bad, &link.ParamError{Param: name, Value: v, Reason: err.Error()})
		}
	}
	page.Compare = CompareChoice{Open: card != CompareLink{}, Chains: card.Chains, Own: card.Own}
	if page.Cards != "" && !page.Present {
		bad = append(bad, &link.ParamError{Param: cardsParam, Value: values[cardsParam], Reason: "only presentation mode (present=1) chooses cards"})
		page.Cards = ""
	}

	if damaged {
		notes = append(notes, "The link's compare card is damaged, so "+instead("compare", page, at)+".")
	}
	// A link that says embed at all is most likely in a frame: if it
	// cannot say which embed, the frame says so rather than show the whole
	// playground or another view.
	page.Embed = page.Embed || slices.ContainsFunc(bad, func(pe *link.ParamError) bool { return pe.Param == "embed" })
	var faults []string
	for _, pe := range bad {
		if page.Embed && slices.Contains(embedParams, pe.Param) {
			faults = append(faults, pe.Fault(label(pe.Param)))
			continue
		}
		notes = append(notes, pe.Words(label(pe.Param), instead(pe.Param, page, at)))
	}
	if len(faults) > 0 {
		page.EmbedError = strings.Join(append(faults, embedShowsNothing), " ")
	}
	return page, at, notes
}

// embedShowsNothing ends an embed's error: what the frame shows instead.
const embedShowsNothing = "So this frame shows no view: the link below opens the session in the full playground."

// embedParams are the page's parameters that say what an embed shows.
var embedParams = []string{"embed", "view", "theme"}

// oneOf says why v is not one of names.
func oneOf(v string, names []string) error {
	if slices.Contains(names, v) {
		return nil
	}
	return errors.New(link.Quote(v) + " is not one of " + strings.Join(names, ", "))
}

// choose sets *choice to v, one of names, the first of which is the
// default and "" names too; or says why it cannot and leaves it.
func choose(choice *string, v string, names []string) error {
	if v == "" {
		v = names[0]
	}
	if err := oneOf(v, names); err != nil {
		return err
	}
	*choice = v
	return nil
}

// readAt reads the step on display, numbered from 1, or says why it
// cannot and returns was.
func readAt(v string, was int) (int, error) {
	n, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return was, errors.New(link.Quote(v) + " is not a whole number")
	case n < 1:
		return was, errors.New(link.Quote(v) + " is not a step: they are numbered from 1")
	}
	return n, nil
}

// readChains reads the compare card's two chains, "A,B", or says why it
// cannot and returns was.
func readChains(v string, was [2]string) ([2]string, error) {
	a, z, ok := strings.Cut(v, ",")
	if !ok || strings.Contains(z, ",") {
		return was, errors.New(link.Quote(v) + " is not two chains separated by a comma")
	}
	var chains [2]string
	for k, name := range []string{a, z} {
		var err error
		if chains[k], err = chainName(name); err != nil {
			return was, err
		}
	}
	return chains, nil
}

// label names the page's parameter p for people.
func label(p string) string {
	switch p {
	case "at":
		return "step on display"
	case "compare":
		return "compare card"
	case "compare_own":
		return "compare card's defaults"
	case tourParam:
		return "tour stop"
	case presentParam:
		return "presentation mode"
	case cardsParam:
		return "presentation's cards"
	}
	return p
}

// instead says what the page has in place of its parameter p, which was
// left out: page, and the step on display at.
func instead(p string, page Page, at int) string {
	c := page.Compare
	switch p {
	case "theme":
		if page.Theme == "auto" {
			return "the page follows the system's colours"
		}
		return "the theme is " + page.Theme
	case "view":
		if page.View == "all" {
			return "the page shows every view"
		}
		return "the view is " + page.View
	case "at":
		if at == 0 {
			return "the page shows the next step"
		}
		return "the page shows step " + strconv.Itoa(at)
	case "compare":
		if c.Chains == ([2]string{}) {
			return "the compare card shows its default chains"
		}
		return "the compare card shows " + c.Chains[0] + " and " + c.Chains[1]
	case "compare_own":
		if c.Own {
			return "llama.cpp and Hugging Face keep their own defaults"
		}
		return "llama.cpp and Hugging Face follow the session's settings"
	case presentParam:
		return "the page is not in presentation mode"
	case cardsParam:
		if page.Present {
			return "the presentation shows every card"
		}
		return "the page shows every card"
	case tourParam:
		if page.Tour == 0 {
			return "the page is not on the tour"
		}
		return "the page shows the tour's stop " + strconv.Itoa(page.Tour)
	}
	return "it is left out"
}

// MaxThreads is the most threads a link may ask for (transformer's
// MaxThreads under js).
const MaxThreads = 8

// ThreadsAsked is how many threads the link rawQuery asks the page to
// run the engine's products on, threads=N, 1 to MaxThreads, or 0 when it
// asks for none or for a number out of range. A link that asks for two or
// more opens a cross-origin isolated page, whose program runs on a shared
// memory (the server's pages; web/shared/app.wasm): the page is isolated
// only then: isolation costs the page's start, and the built-in models
// gain nothing from threads.
func ThreadsAsked(rawQuery string) int {
	values, _ := url.ParseQuery(rawQuery) // what it could read: another part's error is not threads'
	n, err := strconv.Atoi(values.Get("threads"))
	if err != nil || n < 1 || n > MaxThreads {
		return 0
	}
	return n
}
