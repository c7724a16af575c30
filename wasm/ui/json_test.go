package ui

import (
	"encoding/json"
	"testing"
)

// TestAppendJSON: what the hot views hand the page reads back as the
// string they wrote, whatever it holds.
func TestAppendJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `<td class="p">0.5</td>`, "quote \" back\\slash", "new\nline\ttab\x1e\x1f\x00",
		"−∞ ␣the ∅ 😀", "\u2028\u2029", "not utf-8: \xff\xfe"} {
		var got string
		if err := json.Unmarshal(appendJSON(nil, s), &got); err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		want := string([]rune(s)) // what is not UTF-8 reads as U+FFFD
		if got != want {
			t.Errorf("%q reads back as %q, want %q", s, got, want)
		}
	}
}
