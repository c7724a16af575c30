package play

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/link"
)

// A TourStop is one stop of the guided tour: the session it shows, as a
// link's query says it, the step on display, and the cards and parts of
// the picture it is about. The words the page says at a stop are the
// views' (package ui), and read the numbers of the step on display.
type TourStop struct {
	Title string
	Query string   // the session, in a link's query form
	At    int      // the step on display, numbered from 1; 0 for the next
	Cards []string // the ids of the cards it is about, the first scrolled to
	Parts []string // the parts of the picture it lights
}

// Tour walks the worked example's five steps — the logits from W·h, the
// softmax, the greedy choice, the cache growing by the new token's row,
// the next step reading the whole cache — then the same loop on a real
// model, then sampling.
var Tour = []TourStop{
	{Title: "Logits: a score for every token", Query: workedExample,
		Cards: []string{"hidden", "logits"}, Parts: []string{"layers", "head", "logits"}},
	{Title: "Softmax: from scores to probabilities", Query: workedExample,
		Cards: []string{"softmax"}, Parts: []string{"softmax"}},
	{Title: "The choice: greedy takes the most probable", Query: workedExample,
		Cards: []string{"bars", "sampler"}, Parts: []string{"sampler", "token"}},
	{Title: "The KV cache grows by one row", Query: workedExample + "&steps=1",
		Cards: []string{"kv"}, Parts: []string{"token", "kv"}},
	{Title: "The next step feeds only the new token", Query: workedExample + "&steps=1",
		Cards: []string{"hidden", "kv"}, Parts: []string{"tokens", "attention", "kv"}},
	{Title: "A real model: the same loop", Query: "model=stories260K&prompt=Once+upon+a+time&steps=3&temperature=0",
		Cards: []string{"logits", "bars"}, Parts: []string{"layers", "logits", "softmax"}},
	{Title: "Sampling: temperature, top-p and a random draw", Query: "model=stories260K&prompt=The+little+dog&steps=2&temperature=0.8&top_p=0.9&seed=42", At: 2,
		Cards: []string{"sampler", "bars"}, Parts: []string{"softmax", "sampler", "token"}},
}

// workedExample is the session the tour starts with: the toy model's six
// words, the prompt "The cat", greedy decoding.
const workedExample = "model=toy&prompt=The+cat&temperature=0"

// tourParam is the page's query parameter of the tour's stop, and
// tagTour the tag of its record in a share link: the stop's number, from
// 1, as an unsigned varint.
const (
	tourParam = "tour"
	tagTour   = 2
)

// TourStop is the tour's stop on display, or nil when the page is not on
// the tour.
func (p Page) TourStop() *TourStop {
	if p.Tour < 1 || p.Tour > len(Tour) {
		return nil
	}
	return &Tour[p.Tour-1]
}

// StartTour goes to the tour's first stop.
func (c *Controller) StartTour() { c.GoTour(1) }

// EndTour leaves the tour, and the session as it is.
func (c *Controller) EndTour() { c.setPage(func(p *Page) { p.Tour = 0 }) }

// GoTour goes to the tour's stop k, from 1: it opens the stop's session,
// as a user's action Undo takes back (a new session), and shows its step.
// A stop past either end leaves the tour.
func (c *Controller) GoTour(k int) {
	if k < 1 || k > len(Tour) {
		c.EndTour()
		return
	}
	stop := Tour[k-1]
	retry := func() { c.holdAddr = false; c.GoTour(k) }
	c.openThen(stopState(stop).Spec, func(err error) {
		switch {
		case !c.host.Missing(err, retry):
			c.fail("", err)
		case c.sum == nil: // the page's first session: the default one while the model comes
			c.holdAddr = true
			c.openDefault("")
		}
	}, func() {
		c.shown = stop.shown(c.sum.Steps())
		c.page.Tour = k
		c.tourRev = c.sumRev
	})
}

// stopState is the link state of a stop's query. The tour's queries are
// the package's own: TestTourLinks checks that each reads whole.
func stopState(s TourStop) link.State {
	state, _ := link.Open(s.Query, "")
	return state
}

// atTourStop reports whether the page shows its tour stop as the stop
// opened it: the same session, and its step on display. Its share link is
// then the stop's number alone.
func (c *Controller) atTourStop() bool {
	stop := c.page.TourStop()
	if stop == nil || c.sum == nil || c.sumRev != c.tourRev {
		return false
	}
	return c.shown == stop.shown(c.sum.Steps())
}

// shown is the step on display at the stop, in its session of steps
// steps.
func (s *TourStop) shown(steps int) int {
	if s.At > 0 {
		return min(s.At, steps) - 1
	}
	return steps
}

// tourRecords are the tour's stop as a share link's record: none off the
// tour.
func (p Page) tourRecords() []link.Record {
	if p.TourStop() == nil {
		return nil
	}
	return []link.Record{{Tag: tagTour, Body: string(binary.AppendUvarint(nil, uint64(p.Tour)))}}
}

// readTour reads a tour record's body: a stop's number.
func readTour(body string) (int, error) {
	k, n := binary.Uvarint([]byte(body))
	if n <= 0 || n != len(body) {
		return 0, errDamaged
	}
	if k < 1 || k > uint64(len(Tour)) {
		return 0, &link.ParamError{Param: tourParam, Value: strconv.FormatUint(k, 10), Reason: tourRange()}
	}
	return int(k), nil
}

// readTourParam reads the tour parameter's value, or says why it cannot
// and returns was.
func readTourParam(v string, was int) (int, error) {
	k, err := strconv.Atoi(v)
	switch {
	case err != nil:
		return was, errors.New(link.Quote(v) + " is not a whole number")
	case k < 1 || k > len(Tour):
		return was, errors.New(tourRange())
	}
	return k, nil
}

func tourRange() string { return fmt.Sprintf("the tour's stops are numbered 1 to %d", len(Tour)) }

// onlyPageParams reports whether a link's query and fragment say nothing
// of a session: no fragment, and only the page's parameters.
func onlyPageParams(rawQuery, fragment string) bool {
	if fragment != "" {
		return false
	}
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return false
	}
	for name := range values {
		if !slices.Contains(pageParams, strings.ToLower(name)) {
			return false
		}
	}
	return true
}
