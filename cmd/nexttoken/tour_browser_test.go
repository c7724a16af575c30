package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"nexttoken/engine/link"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
	"nexttoken/web/models"
)

// tourScreen is the screen the tour's pictures are taken on, and
// tourShot the picture of stop k, for the README and the docs page.
var tourScreen = screen{width: 1100, height: 900}

func tourShot(k int) string {
	return filepath.Join("..", "..", "docs", "tour", "stop-"+strconv.Itoa(k)+".png")
}

// The worked example's numbers as its textbook states them, to 7
// decimals: the softmax of ℓ = [-2.1, 0.3, 3.1, 0.8, 0.1, -0.5] and the
// sum of its exponentials.
var (
	bookP   = []string{"0.0044356", "0.0488946", "0.8040548", "0.0806136", "0.0400315", "0.0219698"}
	bookSum = "1.2436963"
)

// TestTour walks the guided tour as a reader does — Start here, then Next
// at every stop — and checks at each stop the page's address, its title,
// the cards it lights, and every number its words state against the
// engine's own for the stop's session, run natively here; on the worked
// example, the engine's numbers are the book's; from stop 3 to 4 the KV
// cache grows from 2 rows to 3 and rows 0–1 stay as they were. With
// NEXTTOKEN_SCREENSHOT=1 (make screenshot) it writes each stop's picture
// into docs/tour; otherwise it checks the committed ones are the size it
// takes.
func TestTour(t *testing.T) {
	tab := openPageAs(t, "/", tourScreen)
	click(tab, "#tour-start")
	var rowsBefore []string
	for k, stop := range play.Tour {
		n := k + 1
		waitFor(tab, fmt.Sprintf(`location.search === "?tour=%d" && document.getElementById("tour-title")?.textContent === %s`, n, jsString(stop.Title)))
		drawn(tab)
		if got := evaluate[string](tab, `document.getElementById("playground").dataset.tourCards`); got != strings.Join(stop.Cards, " ") {
			t.Errorf("stop %d lights cards %q, want %q", n, got, stop.Cards)
		}
		words := text(tab, "#tour-words")
		texts, numbers := stopNumbers(t, n, stop)
		for _, want := range texts {
			if !strings.Contains(words, want) {
				t.Errorf("stop %d's words lack %q:\n%s", n, want, words)
			}
		}
		for _, want := range numbers {
			if !statesNear(words, want) {
				t.Errorf("stop %d's words lack %.7f (within %g):\n%s", n, want, browserRounding, words)
			}
		}
		switch n {
		case 2:
			for _, p := range append(slices.Clone(bookP), bookSum) {
				if !strings.Contains(words, p) {
					t.Errorf("stop 2's words lack the book's %s:\n%s", p, words)
				}
			}
		case 3:
			rowsBefore = kvRows(tab)
			if len(rowsBefore) != 2 {
				t.Errorf("at stop 3 the KV cache has %d rows, want the prompt's 2: %q", len(rowsBefore), rowsBefore)
			}
		case 4:
			rows := kvRows(tab)
			if len(rows) != 3 || len(rowsBefore) != 2 || !slices.Equal(rows[:2], rowsBefore) {
				t.Errorf("at stop 4 the KV cache is %q, want stop 3's %q and one row more", rows, rowsBefore)
			}
		}
		shot := must(tab, "screenshot", chromedp.CaptureScreenshot())
		tourPicture(t, n, shot)
		click(tab, "#tour-next")
	}
	waitFor(tab, `document.getElementById("tour-start") !== null && !location.href.includes("tour")`)
}

// kvRows are the rows of the KV card's table, as text.
func kvRows(tab context.Context) []string {
	return evaluate[[]string](tab, `[...document.querySelectorAll("#kv-table tr")].slice(1).map(r => r.textContent)`)
}

// stopNumbers are what stop n's words state, from the stop's session run
// natively: on the worked example, texts the words hold as they are (each
// logit, exponential and p to the decimals the words give, the cache's
// rows); on stories260K, numbers the words hold up to browserRounding.
func stopNumbers(t *testing.T, n int, stop play.TourStop) (texts []string, numbers []float64) {
	t.Helper()
	state, dropped := link.Open(stop.Query, "")
	if len(dropped) > 0 {
		t.Fatalf("stop %d's query drops %+v", n, dropped)
	}
	s, err := session.New(state.Spec, models.Load)
	if err != nil {
		t.Fatal(err)
	}
	shown := len(s.Trace().Steps)
	if stop.At > 0 {
		shown = stop.At - 1
	}
	d, err := s.Detail(shown)
	if err != nil {
		t.Fatal(err)
	}
	f7 := func(x float64) string { return strconv.FormatFloat(x, 'f', 7, 64) }
	sm, c := d.Choice.Softmax, d.Choice
	switch n {
	case 1:
		for _, l := range d.Computed {
			texts = append(texts, strings.Replace(strconv.FormatFloat(l, 'f', 4, 64), "-", "−", 1))
		}
	case 2:
		texts = append(texts, f7(sm.Sum))
		for i := range sm.Probs {
			texts = append(texts, f7(sm.Exp[i]), f7(sm.Probs[i]))
		}
	case 3:
		texts = append(texts, "(id "+strconv.Itoa(d.Step.Token)+"), at p = "+f7(sm.Probs[d.Step.Token]))
	case 4:
		texts = append(texts, fmt.Sprintf("from %d rows to %d", d.Step.Pos, d.Step.Pos+1))
	case 5:
		texts = append(texts, fmt.Sprintf("position %d", d.Step.Pos), fmt.Sprintf("%d rows", d.Step.Pos+1), f7(sm.Probs[d.Step.Token]))
	case 6:
		texts = append(texts, strconv.Itoa(len(d.Logits))+" logits", fmt.Sprintf("position %d", d.Step.Pos))
		numbers = append(numbers, sm.Probs[c.Token])
	case 7:
		texts = append(texts, fmt.Sprintf("here %d of %d tokens", c.Stages[len(c.Stages)-1].Survivors, len(d.Logits)))
		numbers = append(numbers, c.Draw.U, c.Draw.Lo, c.Draw.Hi, c.Prob)
	}
	return texts, numbers
}

// browserRounding is how far a number of stories260K's computed in the
// browser may be from the native engine's: natively its float32 products
// run package matvec's AVX2 kernel, which adds a dot product's terms in another order
// than the browser's kernels (the Go loops' order), so the logits differ
// in their last bits (docs/performance.md). The toy's are exact both ways.
const browserRounding = 2e-6

// decimal is a number as the tour's words write one.
var decimal = regexp.MustCompile(`\d+\.\d+`)

// statesNear reports whether words state a number within browserRounding
// of x.
func statesNear(words string, x float64) bool {
	for _, m := range decimal.FindAllString(words, -1) {
		if v, err := strconv.ParseFloat(m, 64); err == nil && math.Abs(v-x) <= browserRounding {
			return true
		}
	}
	return false
}

// tourPicture writes stop n's picture with NEXTTOKEN_SCREENSHOT=1, or
// checks that the committed one is a PNG of the size taken.
func tourPicture(t *testing.T, n int, shot []byte) {
	t.Helper()
	file := tourShot(n)
	if os.Getenv("NEXTTOKEN_SCREENSHOT") == "1" {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	taken, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("stop %d's screenshot is not a PNG: %v", n, err)
	}
	committed, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("stop %d's picture: %v (make screenshot takes it)", n, err)
	}
	c, err := png.DecodeConfig(bytes.NewReader(committed))
	if err != nil || c.Width != taken.Width || c.Height != taken.Height {
		t.Errorf("%s is not a %d × %d PNG (%v): make screenshot takes it again", file, taken.Width, taken.Height, err)
	}
}
