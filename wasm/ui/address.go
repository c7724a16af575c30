package ui

import (
	"net/url"
	"strings"
)

// repairedQuery is the address's query as it was typed, when RepairAddress
// had to escape a stray "%" in it: link.ParseQuery then says which
// parameter holds it.
var repairedQuery string

// prelive is what the server's pages did before the program started
// (TakeOverSteps): the link the reader opened, and the steps taken on it
// that led to the address's link. The page opens that link and takes the
// steps again, so that Undo takes them back.
var prelive struct {
	from  string
	steps int
}

// escapeStrayPercents returns href with every "%" that does not start a
// valid escape written as "%25", if href does not parse as a URL as it is.
// The link then opens, and its broken part is reported like any other
// mistake in it.
func escapeStrayPercents(href string) (string, bool) {
	if _, err := url.Parse(href); err == nil {
		return href, false
	}
	var b strings.Builder
	for i := 0; i < len(href); i++ {
		if href[i] == '%' && !(i+2 < len(href) && isHex(href[i+1]) && isHex(href[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(href[i])
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
