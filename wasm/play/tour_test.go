package play

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
)

// TestTourLinks checks that every stop's query reads whole, so that
// stopState loses nothing, and names cards the page has.
func TestTourLinks(t *testing.T) {
	cards := []string{"hidden", "logits", "softmax", "bars", "sampler", "kv", "compare", "lens", "recompute", "timeline", "tree"}
	for k, stop := range Tour {
		_, dropped := link.Open(stop.Query, "")
		if len(dropped) > 0 {
			t.Errorf("stop %d: its query %q drops %+v", k+1, stop.Query, dropped)
		}
		if stop.Title == "" || len(stop.Cards) == 0 {
			t.Errorf("stop %d has no title or no card", k+1)
		}
		for _, id := range stop.Cards {
			if !slices.Contains(cards, id) {
				t.Errorf("stop %d names card %q, which the page does not have", k+1, id)
			}
		}
	}
}

// TestGoTour goes to each stop: the stop's session and step on display,
// the page on the tour, a share link of the stop's number alone; an
// action on the session makes the link carry the session with the stop;
// Undo gives back the session before the stop.
func TestGoTour(t *testing.T) {
	for k := 1; k <= len(Tour); k++ {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			r := newRig(t, catalog.Default())
			r.c.GoTour(k)
			r.settle()
			s := r.snap()
			stop := Tour[k-1]
			want := stopState(stop).Spec
			if !reflect.DeepEqual(s.Session.Spec, want) {
				t.Fatalf("the session is %+v, want the stop's %+v", s.Session.Spec, want)
			}
			if s.Page.Tour != k || s.Page.TourStop() != &Tour[k-1] {
				t.Errorf("page.Tour = %d, want %d", s.Page.Tour, k)
			}
			shown := s.Session.Steps()
			if stop.At > 0 {
				shown = stop.At - 1
			}
			if s.Shown != shown {
				t.Errorf("shown = %d, want %d", s.Shown, shown)
			}
			if got, want := r.c.ShareLink(), "/?tour="+strconv.Itoa(k); got != want {
				t.Errorf("share link = %q, want %q", got, want)
			}

			// The link of the stop opens it again.
			again := newRig(t, catalog.Default())
			again.c.OpenAddress("tour="+strconv.Itoa(k), "")
			again.settle()
			if g := again.snap(); !reflect.DeepEqual(g.Session.Spec, want) || g.Page.Tour != k || g.Shown != shown {
				t.Errorf("?tour=%d opens %+v at %d on stop %d, want the stop's session at %d", k, g.Session.Spec, g.Shown, g.Page.Tour, shown)
			}

			// An action keeps the tour, and the link carries both.
			r.c.Step()
			r.settle()
			l := r.c.ShareLink()
			if !strings.Contains(l, "#") {
				t.Fatalf("after a step the share link %q carries no session", l)
			}
			_, frag, _ := strings.Cut(l, "#")
			back := newRig(t, catalog.Default())
			back.c.OpenAddress("", frag)
			back.settle()
			if g := back.snap(); g.Page.Tour != k || g.Session.Spec.Steps != want.Steps+1 {
				t.Errorf("the share link after a step opens stop %d with %d steps, want stop %d with %d", g.Page.Tour, g.Session.Spec.Steps, k, want.Steps+1)
			}

			r.c.Undo() // the step
			r.c.Undo() // the stop
			r.settle()
			if g := r.snap(); !reflect.DeepEqual(g.Session.Spec, catalog.Default()) {
				t.Errorf("Undo twice gives %+v, want the session before the tour", g.Session.Spec)
			}
		})
	}
}

// TestLeaveTour: End, and a stop past either end, leave the tour and the
// session as it is.
func TestLeaveTour(t *testing.T) {
	for _, leave := range []struct {
		name string
		do   func(c *Controller)
	}{
		{"end", func(c *Controller) { c.EndTour() }},
		{"before the first", func(c *Controller) { c.GoTour(0) }},
		{"past the last", func(c *Controller) { c.GoTour(len(Tour) + 1) }},
	} {
		t.Run(leave.name, func(t *testing.T) {
			r := newRig(t, catalog.Default())
			r.c.GoTour(4)
			r.settle()
			spec := r.snap().Session.Spec
			leave.do(r.c)
			r.settle()
			s := r.snap()
			if s.Page.Tour != 0 || s.Page.TourStop() != nil {
				t.Errorf("still on stop %d", s.Page.Tour)
			}
			if !reflect.DeepEqual(s.Session.Spec, spec) {
				t.Errorf("leaving the tour changed the session to %+v", s.Session.Spec)
			}
			if strings.Contains(r.c.ShareLink(), "tour") {
				t.Errorf("the share link %q still names the tour", r.c.ShareLink())
			}
		})
	}
}

// TestTourParam: a tour parameter beside a session of the link's own
// keeps that session; a bad one is named and left out.
func TestTourParam(t *testing.T) {
	for _, c := range []struct {
		query     string
		tour      int
		prompt    string
		noticeHas string
		steps     int
	}{
		{query: "tour=2", tour: 2, prompt: "The cat"},
		{query: "TOUR=4", tour: 4, prompt: "The cat", steps: 1},
		{query: "model=toy&prompt=the+cat&tour=3", tour: 3, prompt: "the cat"},
		{query: "tour=0", prompt: "The cat", noticeHas: "tour stop"},
		{query: "tour=" + strconv.Itoa(len(Tour)+1), prompt: "The cat", noticeHas: "numbered 1 to " + strconv.Itoa(len(Tour))},
		{query: "tour=x", prompt: "The cat", noticeHas: "not a whole number"},
	} {
		t.Run(c.query, func(t *testing.T) {
			r := newRig(t, catalog.Default())
			r.c.OpenAddress(c.query, "")
			r.settle()
			s := r.snap()
			if s.Page.Tour != c.tour || s.Session.Spec.Prompt != c.prompt || s.Session.Spec.Steps != c.steps {
				t.Errorf("stop %d, prompt %q, %d steps; want stop %d, %q, %d", s.Page.Tour, s.Session.Spec.Prompt, s.Session.Spec.Steps, c.tour, c.prompt, c.steps)
			}
			if c.noticeHas == "" && s.Notice != "" || !strings.Contains(s.Notice, c.noticeHas) {
				t.Errorf("notice %q, want one with %q", s.Notice, c.noticeHas)
			}
		})
	}
}

// TestTourRecordDamaged: a share link's tour record that does not read
// is named, and the page is off the tour.
func TestTourRecordDamaged(t *testing.T) {
	for _, c := range []struct {
		name, body, notice string
	}{
		{"empty", "", "damaged"},
		{"trailing bytes", "\x02\x00", "damaged"},
		{"out of range", "\x63", "numbered 1 to"},
	} {
		t.Run(c.name, func(t *testing.T) {
			frag, err := link.Encode(link.State{Spec: catalog.Default(), Page: link.Page{Records: []link.Record{{Tag: tagTour, Body: c.body}}}})
			if err != nil {
				t.Fatal(err)
			}
			r := newRig(t, catalog.Default())
			r.c.OpenAddress("", frag)
			r.settle()
			s := r.snap()
			if s.Page.Tour != 0 || !strings.Contains(s.Notice, c.notice) {
				t.Errorf("stop %d, notice %q; want off the tour and a notice with %q", s.Page.Tour, s.Notice, c.notice)
			}
		})
	}
}
