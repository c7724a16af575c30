//go:build !js

package main

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestZZShot(t *testing.T) {
	for name, path := range map[string]string{"toy": "/?model=toy&steps=2", "260": "/?model=stories260K&steps=30&temperature=1&seed=3&view=all"} {
		tab := openPage(t, path)
		png := must(tab, "shot", chromedp.FullScreenshot(100))
		os.WriteFile("/tmp/shot-"+name+".png", png, 0o644)
	}
}
