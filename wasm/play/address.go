package play

import (
	"fmt"
	"strings"
	"time"

	"nexttoken/engine/catalog"
	"nexttoken/engine/link"
	"nexttoken/engine/session"
)

// OpenAddress opens the session and page an address asks for: its raw
// query and its fragment (without the '?' and '#'). What cannot be read is
// left out and the notice says what, in words; a link whose model the page
// does not hold has it fetched (Host.Missing), the default session shown
// meanwhile.
func (c *Controller) OpenAddress(rawQuery, fragment string) {
	state, dropped := link.Open(rawQuery, fragment)
	var notes []string
	for _, d := range dropped {
		notes = append(notes, d.Message)
	}
	query, _ := link.ParseQuery(rawQuery)
	pg := link.PageOf(query)
	page := DefaultPage()
	page.Embed = pg.Embed
	if state.View != "" {
		if err := checkView(state.View); err != nil {
			notes = append(notes, Words(err)+" Showing every view.")
		} else {
			page.View = state.View
		}
	}
	if pg.Theme != "" {
		if err := checkTheme(pg.Theme); err != nil {
			notes = append(notes, Words(err)+" Following the system's.")
		} else {
			page.Theme = pg.Theme
		}
	}
	page.Compare = CompareChoice{Open: state.Compare != (link.Compare{}), Chains: state.Compare.Chains, Own: state.Compare.Own}
	c.page = page
	c.openLink(state, strings.Join(notes, " "), rawQuery, fragment)
}

// openLink opens a link's session and shows its step, with notes about
// what of the link was left out.
func (c *Controller) openLink(state link.State, notes, rawQuery, fragment string) {
	c.do("", func() {
		c.send(Request{Op: Open, Spec: state.Spec}, func(a Answer) {
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
			if at := state.At; at > 0 {
				c.shown = min(at-1, c.sum.Steps())
				if at-1 > c.sum.Steps() {
					c.notice = strings.TrimSpace(notes + fmt.Sprintf(" The link shows step %d, but the session ends after %d steps: showing the last.", at, c.sum.Steps()))
				}
			}
			c.changed()
		})
	})
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
	if c.page.Embed || c.holdAddr || c.sum == nil {
		return
	}
	if c.address != nil {
		c.address()
	}
	c.address = c.host.After(addressDelay, func() {
		c.address = nil
		if !c.holdAddr {
			c.host.Address(c.ShareLink())
		}
	})
}

// ShareLink is the address of this session in the full playground: the
// page's path and the whole state in the fragment. It is relative, so it
// works on any host and under any sub-path.
func (c *Controller) ShareLink() string {
	if c.sum == nil {
		return c.path
	}
	state := link.State{Spec: c.sum.Spec, View: c.page.View, Compare: c.page.compareLink()}
	if c.shown < c.sum.Steps() {
		state.At = c.shown + 1 // a past step on display
	}
	frag, err := link.Encode(state)
	if err != nil {
		return c.path
	}
	return c.path + "#" + frag
}

// EmbedLink is the address of an embeddable view of a session: readable
// query parameters when they say everything (documentation writers edit
// them by hand), else the encoded state in the fragment. The compare view
// shows the compare card's chains; other views leave them out.
func EmbedLink(path string, spec session.Spec, view string, cmp link.Compare) string {
	base := path + "?embed=1&view=" + view
	if view != "compare" {
		cmp = link.Compare{}
	}
	if q, lossy := link.Query(link.State{Spec: spec, Compare: cmp}); !lossy {
		if len(q) == 0 {
			return base
		}
		return base + "&" + q.Encode()
	}
	frag, err := link.Encode(link.State{Spec: spec, View: view, Compare: cmp})
	if err != nil {
		return base
	}
	return base + "#" + frag
}
