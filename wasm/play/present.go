package play

import (
	"errors"
	"slices"
	"strings"

	"nexttoken/engine/link"
)

// Cards are the cards a presentation can choose (?present=1&cards=…), by
// their ids on the page.
var Cards = []string{"picture", "tree", "timeline", "hidden", "logits", "softmax", "bars", "sampler", "compare", "lens", "recompute", "kv"}

// The page's query parameters of presentation mode.
const (
	presentParam = "present"
	cardsParam   = "cards"
)

// readCards reads the cards parameter's value, card ids separated by
// commas ("" for every card), into the form Page.Cards keeps; or says why
// it cannot and returns was.
func readCards(v, was string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	ids := strings.Split(v, ",")
	for i, id := range ids {
		ids[i] = strings.ToLower(strings.TrimSpace(id))
		if !slices.Contains(Cards, ids[i]) {
			return was, errors.New(link.Quote(id) + " is not a card: they are " + strings.Join(Cards, ", "))
		}
	}
	return strings.Join(ids, ","), nil
}

// Shows reports whether the page shows the card of id: off presentation
// mode, every card; in it, the cards the link chose, or, none chosen, the
// tour stop's cards on the tour and every card off it.
func (p Page) Shows(id string) bool {
	switch {
	case !p.Present:
		return true
	case p.Cards != "":
		return slices.Contains(strings.Split(p.Cards, ","), id)
	case p.TourStop() != nil:
		return slices.Contains(p.TourStop().Cards, id)
	}
	return true
}

// presentQuery is presentation mode as a link's query parameters, without
// the '?': "" off it.
func (p Page) presentQuery() string {
	if !p.Present {
		return ""
	}
	q := presentParam + "=1"
	if p.Cards != "" {
		q += "&" + cardsParam + "=" + p.Cards
	}
	return q
}

// withQuery adds query parameters q to a link, before its fragment.
func withQuery(address, q string) string {
	if q == "" {
		return address
	}
	base, frag, hasFrag := strings.Cut(address, "#")
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	base += sep + q
	if hasFrag {
		base += "#" + frag
	}
	return base
}

// PresentLink is shareLink, a page's share link, opened in presentation
// mode with the cards cards names (ids separated by commas, "" for all),
// or why cards cannot be read.
func PresentLink(shareLink, cards string) (string, error) {
	p := Page{Present: true}
	var err error
	if p.Cards, err = readCards(cards, ""); err != nil {
		return shareLink, err
	}
	return withQuery(shareLink, p.presentQuery()), nil
}
