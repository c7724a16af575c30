package chat

import (
	"fmt"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// Now is the instant strftime_now gives every template: 26 July 2024,
// 00:00 UTC, the date Llama 3's template writes when it has no clock.
// llama.cpp (minja) gives the wall clock; a fixed instant keeps a
// conversation's prompt the same every day, and agrees with llama.cpp
// run with its clock at that instant.
var Now = time.Date(2024, time.July, 26, 0, 0, 0, 0, time.UTC)

// strftimeLayouts are the directives C's strftime (minja's
// std::put_time) and Python's share, as Go layouts.
var strftimeLayouts = map[byte]string{
	'a': "Mon", 'A': "Monday", 'b': "Jan", 'h': "Jan", 'B': "January",
	'd': "02", 'e': "_2", 'H': "15", 'I': "03", 'm': "01", 'M': "04",
	'p': "PM", 'S': "05", 'y': "06", 'Y': "2006", 'Z': "MST", 'z': "-0700",
}

// strftimeNow is strftime of Now.
func strftimeNow(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
	if len(args) != 1 || len(kwargs) != 0 || !args[0].IsString() {
		return jinja.Undefined(), fmt.Errorf("strftime_now: want one format string")
	}
	format := args[0].AsString()
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		switch c := format[i]; {
		case strftimeLayouts[c] != "":
			b.WriteString(Now.Format(strftimeLayouts[c]))
		case c == 'j':
			fmt.Fprintf(&b, "%03d", Now.YearDay())
		case c == '%':
			b.WriteByte('%')
		default:
			return jinja.Undefined(), fmt.Errorf("strftime_now: %%%c is not supported", c)
		}
	}
	return jinja.NewString(b.String()), nil
}
