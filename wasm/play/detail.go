package play

import (
	"nexttoken/engine/session"
)

// Detail is the step on display as the views show it.
//
// It embeds the session's own detail while the views move to the parts
// below, which hold what they print and never a vector as long as the
// vocabulary; only the page's engine fills the embedded detail.
type Detail struct {
	*session.Detail
}

// detailOf is the page's detail of d.
func detailOf(d *session.Detail) *Detail {
	if d == nil {
		return nil
	}
	return &Detail{Detail: d}
}
