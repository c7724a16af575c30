package ui

import (
	"html"
	"net/url"
	"os"
	"regexp"
	"testing"

	"nexttoken/engine/link"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
	"nexttoken/web/models"
)

// TestDocsEmbedsAreTheCopiedSnippet checks that every iframe of index.html,
// the documentation page, is exactly what the share panel's embed code
// gives for its session (the docs page is one folder below the playground,
// hence the path "../").
func TestDocsEmbedsAreTheCopiedSnippet(t *testing.T) {
	page, err := os.ReadFile("../../index.html")
	if err != nil {
		t.Fatal(err)
	}
	frames := regexp.MustCompile(`<iframe src="([^"]*)" title="nexttoken: ([a-z]+)"`).FindAllSubmatch(page, -1)
	if len(frames) < 3 {
		t.Fatalf("index.html has %d embeds, want at least 3", len(frames))
	}
	for _, f := range frames {
		src, view := html.UnescapeString(string(f[1])), string(f[2])
		u, err := url.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		if q.Get("embed") != "1" || q.Get("view") != view {
			t.Errorf("%s: not an embed of view %s", src, view)
		}
		q.Del("embed")
		q.Del("view")
		state, err := link.Merge(q, "")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		s, err := session.New(state.Spec, models.Load)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if got := play.EmbedLink("../", s.Spec(), view, state.Compare); got != src {
			t.Errorf("index.html embeds\n  %s\nthe share panel gives\n  %s", src, got)
		}
	}
}
