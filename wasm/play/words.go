package play

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/sampler"
)

// Words is an error as the page says it: a sentence for people, without
// the package prefixes that tell a developer where it came from.
func Words(err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	for _, prefix := range []string{"sampler: ", "share link: ", "session: "} {
		msg = strings.ReplaceAll(msg, prefix, "")
	}
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return "Something went wrong."
	}
	if first, _, _ := strings.Cut(msg, " "); !strings.ContainsAny(first, ":_") {
		msg = strings.ToUpper(msg[:1]) + msg[1:] // not a parameter's name, which is spelled as in links
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// Describe says what settings are, briefly: "temperature 0.8, top-p 0.9",
// "greedy decoding, keeps going past end of text".
func Describe(s sampler.Settings) string {
	parts := []string{"greedy decoding"}
	if s.Temperature != 0 || s.Runtime() {
		parts = parts[:0]
		switch s.Mode {
		case sampler.RunC:
			parts = append(parts, "run.c's sampling")
		case sampler.LlamaCpp:
			parts = append(parts, "llama.cpp's chain")
		case sampler.HF:
			parts = append(parts, "Hugging Face's chain")
		}
		for _, p := range sampler.Params {
			if v := p.Get(s); !p.IsOff(v) && !(p.ChainOnly && s.Mode == sampler.RunC) {
				parts = append(parts, p.Label+" "+sampler.Readable(v))
			}
		}
	}
	if s.IgnoreEOS {
		parts = append(parts, ignoresEnd)
	}
	return strings.Join(parts, ", ")
}

// ignoresEnd says that settings ignore the end of text
// (sampler.Settings.IgnoreEOS).
const ignoresEnd = "keeps going past end of text"

// Differences says how settings now differ from was: "temperature 1.2
// where it was 0.8, top-p 0.9 where it was off".
func Differences(now, was sampler.Settings) string {
	var parts []string
	if now.Mode != was.Mode {
		parts = append(parts, Describe(now)+" where it was "+Describe(was))
		return strings.Join(parts, ", ")
	}
	for _, ps := range [][]sampler.Param{sampler.Params, sampler.LlamaParams} {
		for _, p := range ps {
			if a, b := p.Get(now), p.Get(was); a != b {
				parts = append(parts, p.Label+" "+value(p, a)+" where it was "+value(p, b))
			}
		}
	}
	if now.Sequence != was.Sequence {
		parts = append(parts, "stages "+now.Sequence+" where they were "+was.Sequence)
	}
	switch {
	case now.IgnoreEOS && !was.IgnoreEOS:
		parts = append(parts, ignoresEnd+" where it stopped there")
	case was.IgnoreEOS && !now.IgnoreEOS:
		parts = append(parts, "stops at end of text where it kept going past it")
	}
	return strings.Join(parts, ", ")
}

// value is v as a setting p shows it: "off" for a value that switches
// its stage off.
func value(p sampler.Param, v float64) string {
	if p.IsOff(v) {
		return "off"
	}
	return sampler.Readable(v)
}

// paramNamed is the numeric setting called name, of sampler.Params or
// sampler.LlamaParams.
func paramNamed(name string) (sampler.Param, bool) {
	for _, ps := range [][]sampler.Param{sampler.Params, sampler.LlamaParams} {
		if i := slices.IndexFunc(ps, func(p sampler.Param) bool { return p.Name == name }); i >= 0 {
			return ps[i], true
		}
	}
	return sampler.Param{}, false
}

// ParseNumber reads a number typed into a field: finite and within
// ±limit, or −∞ ("-inf", "−∞") when masking is allowed. The typographic
// minus reads as a hyphen.
func ParseNumber(s string, limit float64, allowMask bool) (float64, error) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "−", "-"))
	if allowMask && (s == "-∞" || strings.EqualFold(s, "-infinity")) {
		s = "-inf"
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case allowMask && math.IsInf(v, -1) && err == nil:
		return v, nil
	case err != nil && errors.Is(err, strconv.ErrRange), math.IsInf(v, 0), math.Abs(v) > limit:
		return 0, TooLarge(limit)
	case err != nil || math.IsNaN(v):
		return 0, NotANumber(s)
	}
	return v, nil
}

// TooLarge is ParseNumber's error for a number beyond its limit.
type TooLarge float64

func (e TooLarge) Error() string {
	return "want a number from −" + sampler.Readable(float64(e)) + " to " + sampler.Readable(float64(e))
}

// NotANumber is ParseNumber's error for text that is not a number.
type NotANumber string

func (e NotANumber) Error() string { return strconv.Quote(string(e)) + " is not a number" }
