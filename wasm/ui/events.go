package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// rowEvent reads an event that a list of tokens handles for all its rows:
// when the event's target is, or is inside, an element of the class role
// within the list, it returns that element and the token of its row (the
// closest element with data-token).
//
// Lists handle their rows' events this way so that rows carry no
// handlers: a new step lists other tokens, and go-app would replace every
// row's handlers (a FuncOf and an addEventListener each) at every step.
func rowEvent(e app.Event, role string) (id int, field app.Value, ok bool) {
	target, list := e.Get("target"), e.Get("currentTarget")
	if !target.Truthy() || !list.Truthy() || !target.Get("closest").Truthy() {
		return 0, nil, false // not an element: a text node, or the window
	}
	field = target.Call("closest", "."+role)
	if !field.Truthy() || !list.Call("contains", field).Bool() {
		return 0, nil, false
	}
	row := field.Call("closest", "[data-token]")
	if !row.Truthy() {
		return 0, nil, false
	}
	id, err := strconv.Atoi(row.Get("dataset").Get("token").String())
	return id, field, err == nil
}
