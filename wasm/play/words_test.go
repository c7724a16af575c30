package play

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
		got, err := ParseNumber(tc.in, 1e4, tc.allowMask)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseNumber(%q) error %v, want one containing %q", tc.in, err, tc.err)
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
