package play

import (
	"math"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
)

// TestParseNumber covers what people type into number fields: a clear
// error for anything that is not a usable number, never a panic.
func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in        string
		allowMask bool
		want      float64
		err       string
	}{
		{"3.1", false, 3.1, ""},
		{" -2.5 ", false, -2.5, ""},
		{"−0.5", false, -0.5, ""}, // typographic minus, as the page shows it
		{"1e3", false, 1000, ""},
		{"-inf", true, math.Inf(-1), ""},
		{"-inf", false, 0, "from −10,000 to 10,000"},
		{"inf", true, 0, "from −10,000 to 10,000"},
		{"NaN", true, 0, "not a number"},
		{"abc", false, 0, "not a number"},
		{"", false, 0, "not a number"},
		{"1e999", true, 0, "from −10,000 to 10,000"},
		{"20001", false, 0, "from −10,000 to 10,000"},
		{"0x10", false, 0, "not a number"},
	} {
		got, err := ParseNumber(tc.in, 1e4, tc.allowMask)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseNumber(%q) error %v, want one containing %q", tc.in, err, tc.err)
		}
	}
}

// TestDescribe: settings, and how they differ, in words, the end of text
// ignored among them.
func TestDescribe(t *testing.T) {
	greedy := sampler.DefaultSettings()
	hot := sampler.Settings{Mode: sampler.Chain, Temperature: 0.8, TopP: 0.9, RepetitionPenalty: 1, Seed: 42}
	ignoring := func(s sampler.Settings) sampler.Settings {
		s.IgnoreEOS = true
		return s
	}
	for _, tc := range []struct {
		now, was          sampler.Settings
		describe, differs string
	}{
		{greedy, greedy, "greedy decoding", ""},
		{ignoring(greedy), greedy, "greedy decoding, keeps going past end of text", "keeps going past end of text where it stopped there"},
		{hot, ignoring(hot), "temperature 0.8, top-p 0.9, seed 42", "stops at end of text where it kept going past it"},
		{ignoring(hot), greedy, "temperature 0.8, top-p 0.9, seed 42, keeps going past end of text",
			"temperature 0.8 where it was 0, top-p 0.9 where it was off, keeps going past end of text where it stopped there"},
		{ignoring(sampler.Settings{Mode: sampler.RunC, Temperature: 1, Seed: 3}), hot,
			"run.c's sampling, temperature 1, seed 3, keeps going past end of text",
			"run.c's sampling, temperature 1, seed 3, keeps going past end of text where it was temperature 0.8, top-p 0.9, seed 42"},
	} {
		if got := Describe(tc.now); got != tc.describe {
			t.Errorf("Describe(%+v) = %q, want %q", tc.now, got, tc.describe)
		}
		if got := Differences(tc.now, tc.was); got != tc.differs {
			t.Errorf("Differences(%+v, %+v) = %q, want %q", tc.now, tc.was, got, tc.differs)
		}
	}
}

func TestUTF16Len(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0}, {"cat", 3}, {"é", 1}, {"␣", 1}, {"😀", 2}, {"a😀b", 4}, {"\xff", 1},
	} {
		if got := utf16Len(c.s); got != c.want {
			t.Errorf("utf16Len(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}
