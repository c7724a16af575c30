package tokenizer

import "testing"

func TestReadable(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"", "∅"},
		{" the\n", "␣the↵"},
		{"\tx", "⇥x"},
		{"\x01\x7f", "<0x01><0x7F>"},
		{"\xe2\x80", "<0xE2><0x80>"}, // a character cut short, as byte-level tokens are
		{"é中🙂", "é中🙂"},
		{"\uFFFD", "\uFFFD"}, // the character itself, not a byte
	} {
		if got := Readable(tc.text); got != tc.want {
			t.Errorf("Readable(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
