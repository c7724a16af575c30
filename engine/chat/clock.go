package chat

import (
	"fmt"
	"strconv"
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

// strftimeNow is Python's time.strftime of Now for the directives C's
// strftime (minja's std::put_time) shares with it.
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
		switch c := format[i]; c {
		case 'a':
			b.WriteString(Now.Format("Mon"))
		case 'A':
			b.WriteString(Now.Format("Monday"))
		case 'b', 'h':
			b.WriteString(Now.Format("Jan"))
		case 'B':
			b.WriteString(Now.Format("January"))
		case 'd':
			b.WriteString(Now.Format("02"))
		case 'e':
			b.WriteString(Now.Format("_2"))
		case 'H':
			b.WriteString(Now.Format("15"))
		case 'I':
			b.WriteString(Now.Format("03"))
		case 'j':
			fmt.Fprintf(&b, "%03d", Now.YearDay())
		case 'm':
			b.WriteString(Now.Format("01"))
		case 'M':
			b.WriteString(Now.Format("04"))
		case 'p':
			b.WriteString(Now.Format("PM"))
		case 'S':
			b.WriteString(Now.Format("05"))
		case 'y':
			b.WriteString(Now.Format("06"))
		case 'Y':
			b.WriteString(strconv.Itoa(Now.Year()))
		case 'Z':
			b.WriteString(Now.Format("MST"))
		case 'z':
			b.WriteString(Now.Format("-0700"))
		case '%':
			b.WriteByte('%')
		default:
			return jinja.Undefined(), fmt.Errorf("strftime_now: %%%c is not supported", c)
		}
	}
	return jinja.NewString(b.String()), nil
}
