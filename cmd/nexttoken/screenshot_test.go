package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// screenshotFile is the README's picture of the opening page, taken at
// screenshotScreen.
var (
	screenshotFile   = filepath.Join("..", "..", "docs", "screenshot.png")
	screenshotScreen = screen{width: 1200, height: 1500}
)

// TestScreenshot takes the README's picture of the opening page. With
// NEXTTOKEN_SCREENSHOT=1 (make screenshot) it writes docs/screenshot.png;
// otherwise it leaves the committed picture alone, so that a test run
// does not change the tree, and checks that it is a PNG of the page at
// the same screen size as the one it took.
func TestScreenshot(t *testing.T) {
	tab := openPageAs(t, "/", screenshotScreen)
	waitFor(tab, `document.querySelector('#text') !== null`)
	shot := must(tab, "screenshot", chromedp.CaptureScreenshot())
	taken, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if int64(taken.Width) != screenshotScreen.width || int64(taken.Height) != screenshotScreen.height {
		t.Fatalf("the screenshot is %d × %d, want the screen's %d × %d",
			taken.Width, taken.Height, screenshotScreen.width, screenshotScreen.height)
	}
	if os.Getenv("NEXTTOKEN_SCREENSHOT") == "1" {
		if err := os.WriteFile(screenshotFile, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", screenshotFile)
		return
	}
	committed, err := os.ReadFile(screenshotFile)
	if err != nil {
		t.Fatalf("the README's screenshot: %v (make screenshot takes it)", err)
	}
	c, err := png.DecodeConfig(bytes.NewReader(committed))
	if err != nil {
		t.Fatalf("%s is not a PNG: %v (make screenshot takes it again)", screenshotFile, err)
	}
	if c.Width != taken.Width || c.Height != taken.Height {
		t.Errorf("%s is %d × %d, the page's screenshot %d × %d: make screenshot takes it again",
			screenshotFile, c.Width, c.Height, taken.Width, taken.Height)
	}
}
