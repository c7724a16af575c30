package ui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
)

// fixed formats x with d decimals, as a logit is typed.
func fixed(x float64, d int) string {
	if s, ok := special(x); ok {
		return s
	}
	return minus(strconv.FormatFloat(x, 'f', d, 64))
}

// sig formats x with four significant digits: enough to see where a hand
// calculation rounded (e^−5.2 is 0.005517, not 0.006).
func sig(x float64) string {
	if s, ok := special(x); ok {
		return s
	}
	if x != 0 && math.Abs(x) < 1e-4 {
		return minus(strconv.FormatFloat(x, 'e', 3, 64))
	}
	return minus(strconv.FormatFloat(x, 'g', 4, 64))
}

// sig6 formats x with six significant digits, for sums that are close to 1
// without being 1.
// A number that is not 1 never shows as 1: it gets the digits it takes.
func sig6(x float64) string {
	if s, ok := special(x); ok {
		return s
	}
	for digits := 6; ; digits++ {
		s := strconv.FormatFloat(x, 'g', digits, 64)
		if s != "1" || x == 1 || digits == 17 {
			return minus(s)
		}
	}
}

func special(x float64) (string, bool) {
	switch {
	case math.IsInf(x, -1):
		return "−∞", true
	case math.IsInf(x, 1):
		return "∞", true
	case math.IsNaN(x):
		return "NaN", true
	}
	return "", false
}

// minus uses the typographic minus sign, which lines up with digits.
func minus(s string) string { return strings.Replace(s, "-", "−", 1) }

// HTML writes a boolean attribute as present or absent: disabled="false"
// in a prerendered page would disable the button. go-app removes an
// attribute that a new render leaves out.
func disabledIf(b app.HTMLButton, disabled bool) app.HTMLButton {
	if disabled {
		return b.Disabled(true)
	}
	return b
}

func option(value, label string, selected bool) app.HTMLOption {
	o := app.Option().Value(value).Text(label)
	if selected {
		return o.Selected(true)
	}
	return o
}

// byteSize writes n bytes for people, in binary units: "1.0 MiB".
func byteSize(n int) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return itoa(n) + " bytes"
}

// count writes a count with thin spaces between thousands, as 12 345 678.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "\u2009" + s[i:]
	}
	return s
}

// millis is a duration in milliseconds, four significant digits.
func millis(d time.Duration) string { return sig(float64(d)/float64(time.Millisecond)) + " ms" }

// prefillProgress says how far a prompt's prefill has come, done of total
// positions, and its rate in positions a second when it has one.
func prefillProgress(done, total int, rate float64) string {
	speed := ""
	switch {
	case rate >= 10 && !math.IsInf(rate, 1):
		speed = ", " + sampler.Readable(math.Round(rate)) + " a second"
	case rate > 0 && rate < 10:
		speed = ", " + strconv.FormatFloat(rate, 'f', 1, 64) + " a second"
	}
	return "Reading the prompt: " + sampler.Readable(float64(done)) + " of " + sampler.Readable(float64(total)) + " tokens" + speed + "…"
}
