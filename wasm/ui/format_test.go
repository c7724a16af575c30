package ui

import (
	"math"
	"strings"
	"testing"
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
		got, err := parseNumber(tc.in, 1e4, tc.allowMask)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("parseNumber(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseNumber(%q) error %v, want one containing %q", tc.in, err, tc.err)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{sig(0.0044356), "0.004436"},
		{sig(0.8040547), "0.8041"},
		{sig(1.2437), "1.244"},
		{sig(2.5e-7), "2.500e−07"},
		{sig(0), "0"},
		{sig(math.Inf(-1)), "−∞"},
		{fixed(-2.1, 4), "−2.1000"},
		{fixed(math.NaN(), 4), "NaN"},
		{visible(" the\n"), "␣the↵"},
		{visible(""), "∅"},
		{visible("\x01"), "<0x01>"},
		{byteSize(1280), "1.2 KiB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestShade checks the heat maps' colours: the background at zero,
// saturated red and blue at the ends of the scale, in light and dark.
func TestShade(t *testing.T) {
	for _, tc := range []struct {
		v, peak float64
		dark    bool
		want    [4]byte
	}{
		{0, 1, false, [4]byte{255, 255, 255, 255}},
		{2, 2, false, [4]byte{215, 48, 31, 255}},
		{-2, 2, false, [4]byte{43, 89, 195, 255}},
		{9, 2, false, [4]byte{215, 48, 31, 255}}, // beyond the scale: its end
		{0, 0, false, [4]byte{255, 255, 255, 255}},
		{0, 1, true, [4]byte{29, 31, 36, 255}},
		{-1, 1, true, [4]byte{122, 162, 255, 255}},
	} {
		if got := [4]byte(shade(tc.v, tc.peak, tc.dark)); got != tc.want {
			t.Errorf("shade(%v, %v, dark %v) = %v, want %v", tc.v, tc.peak, tc.dark, got, tc.want)
		}
	}
}

func TestEscapeStrayPercents(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		changed  bool
	}{
		{"http://h/?a=1#s1.abc", "http://h/?a=1#s1.abc", false},
		{"http://h/#%%%x", "http://h/#%25%25%25x", true},
		{"http://h/%zz?p=%41", "http://h/%25zz?p=%41", true},
		{"http://h/#50%", "http://h/#50%25", true},
	} {
		got, changed := escapeStrayPercents(tc.in)
		if got != tc.want || changed != tc.changed {
			t.Errorf("escapeStrayPercents(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.want, tc.changed)
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
