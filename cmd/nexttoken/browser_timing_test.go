//go:build !js

package main

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
)

// TestTiming measures how long the playground takes to go live after a
// navigation: cold, in a fresh browser profile, then warm, navigating again
// in the same tab (HTTP cache, go-app's service worker, V8's code cache).
// It is a measurement, not a test: make timing runs it, with
// NEXTTOKEN_TIMING=1 (and NEXTTOKEN_TIMING_ROUNDS, default 5).
func TestTiming(t *testing.T) {
	if os.Getenv("NEXTTOKEN_TIMING") == "" {
		t.Skip("a measurement: make timing runs it")
	}
	rounds, err := strconv.Atoi(os.Getenv("NEXTTOKEN_TIMING_ROUNDS"))
	if err != nil || rounds < 1 {
		rounds = 5
	}
	h := needBrowser(t)
	var cold, warm []pageLoad
	for range rounds {
		browser, stop, err := newBrowser(h.chromium)
		if err != nil {
			t.Fatal(err)
		}
		tab := openTab(t, browser)
		for _, loads := range []*[]pageLoad{&cold, &warm} {
			load, err := loadPage(tab, h.url+"/")
			if err != nil {
				stop()
				t.Fatal(err)
			}
			*loads = append(*loads, load)
		}
		stop()
	}
	t.Logf("%d rounds, ms after navigation, median (min–max):", rounds)
	for _, run := range []struct {
		name  string
		loads []pageLoad
	}{{"cold", cold}, {"warm", warm}} {
		t.Logf("%s: HTML %s, app.wasm %s (%d bytes on the wire), live %s", run.name,
			spread(run.loads, func(l pageLoad) float64 { return l.HTML }),
			spread(run.loads, func(l pageLoad) float64 { return l.Wasm }),
			run.loads[0].WasmBytes,
			spread(run.loads, func(l pageLoad) float64 { return l.Ready }))
	}
}

// spread is the median, minimum and maximum of a figure.
func spread(loads []pageLoad, figure func(pageLoad) float64) string {
	v := make([]float64, len(loads))
	for i, l := range loads {
		v[i] = figure(l)
	}
	slices.Sort(v)
	return fmt.Sprintf("%.0f (%.0f–%.0f)", v[len(v)/2], v[0], v[len(v)-1])
}
