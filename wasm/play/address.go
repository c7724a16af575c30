package play

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/session"
)

// OpenAddress opens the session and page an address asks for: its raw
// query and its fragment (without the '?' and '#'). What cannot be read is
// left out and the notice says what, in words; a link whose model the page
// does not hold has it fetched (Host.Missing), the default session shown
// meanwhile.
func (c *Controller) OpenAddress(rawQuery, fragment string) {
	c.OpenRead(ReadAddress(rawQuery, fragment))
}

// An Address is an address read (ReadAddress) and ready to open
// (OpenRead): the session and page it asks for, and notes on what of it
// was left out.
type Address struct {
	rawQuery, fragment string
	state              link.State
	page               Page
	at                 int // the step to show, numbered from 1; 0: the next
	notes              []string
}

// ReadAddress reads an address's raw query and fragment, as OpenAddress
// does before it opens them: reading needs no controller, so a page may
// let the browser draw between reading and opening.
func ReadAddress(rawQuery, fragment string) Address {
	state, dropped := link.Open(rawQuery, fragment)
	var notes []string
	for _, d := range dropped {
		notes = append(notes, d.Message)
	}
	page, at, more := openPage(state.Page, rawQuery)
	return Address{rawQuery, fragment, state, page, at, append(notes, more...)}
}

// OpenRead opens the session and page of an address read by ReadAddress,
// as OpenAddress does.
func (c *Controller) OpenRead(a Address) {
	c.page = a.page
	if a.page.Tour > 0 && onlyPageParams(a.rawQuery, a.fragment) {
		c.GoTour(a.page.Tour) // a link to a stop of the tour opens the stop's session
		return
	}
	c.openLink(a.state.Spec, a.at, strings.Join(a.notes, " "), a.rawQuery, a.fragment)
}

// OpenAddressAndStep opens the link rawQuery, as OpenAddress does, and
// then takes steps steps, each an action of its own: the steps the reader
// took on the server's page before the program started, which Undo takes
// back one by one.
func (c *Controller) OpenAddressAndStep(rawQuery string, steps int) {
	c.stepsAfterOpen = stepsAfter{rawQuery, steps}
	c.OpenAddress(rawQuery, "")
}

// stepsAfter are steps to take once the session of link opens.
type stepsAfter struct {
	link  string
	steps int
}

// openLink opens a link's session and shows its step at (numbered from 1;
// 0 for the next), with notes about what of the link was left out. A step
// past the session's last shows its last, and the notice says so.
func (c *Controller) openLink(spec session.Spec, at int, notes, rawQuery, fragment string) {
	c.do("", func() {
		c.send(Request{Op: Open, Spec: spec}, func(a Answer) {
			if a.Err != nil {
				retry := func() { c.holdAddr = false; c.OpenAddress(rawQuery, fragment) }
				if c.host.Missing(a.Err, retry) {
					c.holdAddr = true // the address keeps the link until its model is in
					c.openDefault("")
					return
				}
				c.openDefault(strings.TrimSpace(notes + " This link's session could not be opened: " + Words(a.Err) + " Showing the default session instead."))
				return
			}
			c.take(a.Session)
			c.prompt.reset(c.sum.Spec.Prompt)
			c.clearMessages()
			c.notice = notes
			c.shown = c.sum.Steps()
			if n := c.sum.Steps(); at > 0 {
				c.shown = max(min(at, n)-1, 0)
				if at > n {
					c.notice = strings.TrimSpace(notes + " " + pastLast(at, n))
				}
			}
			c.changed()
			if after := c.stepsAfterOpen; after.link == rawQuery && fragment == "" {
				c.stepsAfterOpen = stepsAfter{}
				for range after.steps {
					c.Step() // each waits for the answer before it
				}
			}
		})
	})
}

// pastLast says that step at, past the last of a session's steps, is not
// shown.
func pastLast(at, steps int) string {
	if steps == 0 {
		return fmt.Sprintf("The link shows step %d, but its session has no steps, so the page shows the next step.", at)
	}
	return fmt.Sprintf("The link shows step %d, but its session has %d, so the page shows step %d, its last.", at, steps, steps)
}

// openDefault opens the default session with notice.
func (c *Controller) openDefault(notice string) {
	c.do("", func() {
		c.send(Request{Op: Open, Spec: catalog.Default()}, func(a Answer) {
			c.take(a.Session)
			c.prompt.reset(c.sum.Spec.Prompt)
			c.clearMessages()
			c.notice = notice
			if a.Err != nil {
				c.notice = Words(a.Err)
			}
			c.shown = 0
			c.changed()
		})
	})
}

// HoldAddress keeps the address bar from following the session while a
// model the link needs is on its way (hold), or lets it follow again.
func (c *Controller) HoldAddress(hold bool) {
	c.holdAddr = hold
	if !hold {
		c.syncAddress()
	}
}

// addressDelay is how long the address bar waits for the session to
// settle: a slider drag makes one update, not fifty, and the update stays
// out of the time between a click and the page showing its effect.
const addressDelay = 100 * time.Millisecond

// syncAddress makes the address bar follow the share link, a moment after
// the last change.
func (c *Controller) syncAddress() {
	if c.page.Embed || c.sum == nil || !c.addressFollows() {
		return
	}
	if c.address != nil {
		c.address()
	}
	c.address = c.host.After(addressDelay, func() {
		c.address = nil
		if c.addressFollows() {
			c.host.Address(c.ShareLink())
		}
	})
}

// addressFollows reports whether the address bar may show the session's
// link: not while a model a link needs is on its way (HoldAddress), nor
// while the session's model from files has no link, their hash not in
// yet (RenameModel).
func (c *Controller) addressFollows() bool {
	return !c.holdAddr && !modelfile.IsPending(c.sum.Spec.Model)
}

// ShareLink is the address of this session in the full playground: the
// page's path and the whole state in the fragment, and presentation mode
// in the query while the page is in it. It is relative, so it works on
// any host and under any sub-path.
func (c *Controller) ShareLink() string {
	return withQuery(c.sessionLink(), c.page.presentQuery())
}

// sessionLink is ShareLink without presentation mode.
func (c *Controller) sessionLink() string {
	if c.sum == nil {
		return c.path
	}
	if c.atTourStop() {
		return c.path + "?" + tourParam + "=" + strconv.Itoa(c.page.Tour)
	}
	at := 0
	if c.shown < c.sum.Steps() {
		at = c.shown + 1 // a past step on display
	}
	frag, err := link.Encode(link.State{Spec: c.sum.Spec, Page: c.page.linkPage(at)})
	if err != nil {
		return c.path
	}
	return c.path + "#" + frag
}

// EmbedLink is the address of an embeddable view of a session: readable
// query parameters when they say everything (documentation writers edit
// them by hand), else the encoded state in the fragment. The compare view
// shows the compare card's chains; other views leave them out. A theme
// other than auto (Themes) is the link's theme parameter.
func EmbedLink(path string, spec session.Spec, view, theme string, card CompareLink) string {
	base := path + "?embed=1&view=" + view
	if theme != "" && theme != Themes[0] {
		base += "&theme=" + theme
	}
	if view != "compare" {
		card = CompareLink{}
	}
	if q, lossy := link.Query(spec); !lossy {
		card.query(q)
		if len(q) == 0 {
			return base
		}
		return base + "&" + q.Encode()
	}
	frag, err := link.Encode(link.State{Spec: spec, Page: link.Page{View: view, Records: card.records()}})
	if err != nil {
		return base
	}
	return base + "#" + frag
}
