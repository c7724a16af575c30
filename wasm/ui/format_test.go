package ui

import (
	"math"
	"testing"
)

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

// TestStoredName: the stored-models list names files as people know them,
// not by their paths.
func TestStoredName(t *testing.T) {
	for _, c := range []struct{ url, want string }{
		{"http://127.0.0.1:8000/web/models/stories260K.bin", "TinyStories 260K, its weights"},
		{"https://example.org/nexttoken/web/models/tok512.bin", "TinyStories 260K, its tokenizer"},
		{"https://huggingface.co/x/y/resolve/main/smollm2-135m-q8_0.gguf", "smollm2-135m-q8_0.gguf from huggingface.co"},
		{"not a url", "not a url"},
	} {
		if got := storedName(c.url); got != c.want {
			t.Errorf("storedName(%q) = %q, want %q", c.url, got, c.want)
		}
	}
}

// TestTail checks the sampler card's end of the context: at most n runes,
// marked when cut, multi-byte runes whole.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"cat", 3, "cat"},
		{"The cat", 3, "…cat"},
		{"a→b→c", 3, "…b→c"},
		{"ünïcödé", 7, "ünïcödé"},
		{"ünïcödé", 2, "…dé"},
		{"ab\xffc", 2, "…\xffc"},
	} {
		if got := tail(tc.s, tc.n); got != tc.want {
			t.Errorf("tail(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestPrefillProgress checks the prefill notice's words: positions with
// thousands separated, the rate rounded, none when there is none yet.
func TestPrefillProgress(t *testing.T) {
	for _, tc := range []struct {
		done, total int
		rate        float64
		want        string
	}{
		{128, 1300, 41.6, "Reading the prompt: 128 of 1,300 tokens, 42 a second…"},
		{64, 300, 3.25, "Reading the prompt: 64 of 300 tokens, 3.2 a second…"},
		{2048, 32703, 1234.5, "Reading the prompt: 2,048 of 32,703 tokens, 1,235 a second…"},
		{64, 300, 0, "Reading the prompt: 64 of 300 tokens…"},
		{64, 300, math.NaN(), "Reading the prompt: 64 of 300 tokens…"},
		{64, 300, math.Inf(1), "Reading the prompt: 64 of 300 tokens…"},
	} {
		if got := prefillProgress(tc.done, tc.total, tc.rate); got != tc.want {
			t.Errorf("prefillProgress(%d, %d, %v) = %q, want %q", tc.done, tc.total, tc.rate, got, tc.want)
		}
	}
}

// TestRoundUp holds roundUp to math.Round on the heat maps' range, at
// the halves and the numbers either side of them.
func TestRoundUp(t *testing.T) {
	for i := range 256 {
		for _, x := range []float64{float64(i), float64(i) + 0.5, math.Nextafter(float64(i)+0.5, 0), math.Nextafter(float64(i)+0.5, 256),
			math.Nextafter(float64(i), 256), float64(i) + 0.25, 0.49999999999999994} {
			if got, want := roundUp(x), math.Round(x); got != want {
				t.Errorf("roundUp(%v) = %v, want %v", x, got, want)
			}
		}
	}
	if !math.IsNaN(roundUp(math.NaN())) {
		t.Error("roundUp(NaN) is not NaN")
	}
}
