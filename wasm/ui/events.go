package ui

import (
	"strconv"

	"github.com/maxence-charriere/go-app/v10/pkg/app"
)

// rowEvent reads an event that a list of tokens handles for all its rows:
// the token of the row (data-token) and the element of the class role the
// event is in; see listEvent.
func rowEvent(e app.Event, role string) (id int, field app.Value, ok bool) {
	return listEvent(e, role, "token")
}

// listEvent reads an event that a list handles for all its items: when the
// event's target is, or is inside, an element of the class role within the
// list, it returns that element and the number its item holds in the data
// attribute key (the closest element with data-key).
//
// Lists handle their items' events this way so that items carry no
// handlers: a new step lists other tokens, or adds a chip, and go-app
// would mount a handler (a FuncOf and an addEventListener) per item.
func listEvent(e app.Event, role, key string) (n int, field app.Value, ok bool) {
	target, list := e.Get("target"), e.Get("currentTarget")
	if !target.Truthy() || !list.Truthy() || !target.Get("closest").Truthy() {
		return 0, nil, false // not an element: a text node, or the window
	}
	field = target.Call("closest", "."+role)
	if !field.Truthy() || !list.Call("contains", field).Bool() {
		return 0, nil, false
	}
	item := field.Call("closest", "[data-"+key+"]")
	if !item.Truthy() {
		return 0, nil, false
	}
	n, err := strconv.Atoi(item.Get("dataset").Get(key).String())
	return n, field, err == nil
}
