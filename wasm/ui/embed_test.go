//go:build !js

package ui

import (
	"html"
	"net/url"
	"os"
	"regexp"
	"testing"

	"nexttoken/wasm/play"
)

// TestDocsEmbedsAreTheCopiedSnippet checks that every iframe of index.html,
// the documentation page, is exactly what the share panel's embed code
// gives for the page it opens (the docs page is one folder below the
// playground, hence the path "../"), its <noscript> copies too; a frame
// that waits for embed.js has data-src in place of src.
func TestDocsEmbedsAreTheCopiedSnippet(t *testing.T) {
	page, err := os.ReadFile("../../index.html")
	if err != nil {
		t.Fatal(err)
	}
	frames := regexp.MustCompile(`<iframe (?:data-)?src="([^"]*)" title="nexttoken: ([a-z]+)"`).FindAllSubmatch(page, -1)
	if len(frames) < 7 {
		t.Fatalf("index.html has %d embeds, want at least 7 (4 frames, 3 of them with a <noscript> copy)", len(frames))
	}
	for _, f := range frames {
		src, view := html.UnescapeString(string(f[1])), string(f[2])
		u, err := url.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		p := playgroundAt(u.RawQuery, u.Fragment)
		s := p.ctl.Snapshot()
		if !s.Page.Embed || s.Page.View != view || s.Notice != "" || s.Page.EmbedError != "" {
			t.Errorf("%s: opens embed %v of view %s, notice %q, error %q; want an embed of view %s", src, s.Page.Embed, s.Page.View, s.Notice, s.Page.EmbedError, view)
		}
		if got := play.EmbedLink("../", s.Session.Spec, s.Page.View, s.Page.Theme, s.Page.EmbedCompare()); got != src {
			t.Errorf("index.html embeds\n  %s\nthe share panel gives\n  %s", src, got)
		}
	}
}
