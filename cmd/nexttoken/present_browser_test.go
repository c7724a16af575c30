//go:build !js

package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"nexttoken/wasm/play"
)

// TestPresentation opens the tour's second stop in presentation mode with
// one card chosen: that card alone of play.Cards is on the page, its type
// is larger than on the page outside presentation mode, and the stop's
// words, a caption at the foot of the window, state the numbers of the
// engine's step run natively. The share panel of the page outside it
// makes the presentation's link.
func TestPresentation(t *testing.T) {
	ids, err := json.Marshal(play.Cards)
	if err != nil {
		t.Fatal(err)
	}
	onPage := `(ids => ids.filter(id => document.getElementById(id) !== null))(` + string(ids) + `)`
	fontSize := `parseFloat(getComputedStyle(document.getElementById("softmax")).fontSize)`
	stop := play.Tour[1]
	atStop := `document.getElementById("tour-title")?.textContent === ` + jsString(stop.Title) + ` && document.getElementById("softmax") !== null`

	normal := openPage(t, "/?tour=2")
	waitFor(normal, atStop)
	drawn(normal)
	if cards := evaluate[[]string](normal, onPage); len(cards) < 2 {
		t.Fatalf("the page outside presentation mode shows only %v", cards)
	}
	normalSize := evaluate[float64](normal, fontSize)
	click(normal, "#share summary")
	click(normal, "#share-present")
	setInput(normal, "#share-cards", "Softmax")
	waitFor(normal, `document.getElementById("share-url").value.endsWith("/?tour=2&present=1&cards=softmax")`)

	tab := openPage(t, "/?present=1&cards=softmax&tour=2")
	waitFor(tab, atStop)
	drawn(tab)
	if cards := evaluate[[]string](tab, onPage); !slices.Equal(cards, []string{"softmax"}) {
		t.Errorf("presentation mode with cards=softmax shows the cards %v", cards)
	}
	if size := evaluate[float64](tab, fontSize); size <= normalSize {
		t.Errorf("the softmax card's type is %g px in presentation mode, %g px outside it", size, normalSize)
	}
	if caption := evaluate[bool](tab, `(r => getComputedStyle(document.getElementById("tour")).position === "fixed" && r.bottom <= innerHeight && r.top > innerHeight / 3)(document.getElementById("tour").getBoundingClientRect())`); !caption {
		t.Error("the stop's words are not a caption at the foot of the window")
	}
	words := text(tab, "#tour-words")
	texts, _ := stopNumbers(t, 2, stop)
	for _, want := range texts {
		if !strings.Contains(words, want) {
			t.Errorf("the caption lacks the step's %q:\n%s", want, words)
		}
	}
	if address := evaluate[string](tab, `location.href`); !strings.Contains(address, "present=1&cards=softmax") {
		t.Errorf("the address %s leaves presentation mode", address)
	}
}
