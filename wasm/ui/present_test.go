//go:build !js

package ui

import (
	"regexp"
	"strings"
	"testing"
)

// TestPresentPage draws the page as links open it, in presentation mode
// and outside it: presentation mode marks the root, which the stylesheet
// sets in larger type, and draws the cards the controller shows alone,
// without the share panel and the stored models.
func TestPresentPage(t *testing.T) {
	for _, c := range []struct {
		name, query string
		present     bool
		has, lacks  []string // element ids
	}{
		{name: "the whole page", query: "tour=2", has: []string{"softmax", "logits", "hidden", "bars", "sampler", "kv", "share", "stored-models"}},
		{name: "one card", query: "present=1&cards=softmax&tour=2", present: true, has: []string{"softmax", "tour-words"},
			lacks: []string{"logits", "hidden", "bars", "sampler", "kv", "picture", "share", "stored-models"}},
		{name: "a stop's cards", query: "present=1&tour=3", present: true, has: []string{"bars", "sampler", "tour-words"},
			lacks: []string{"softmax", "logits", "hidden", "kv", "share"}},
		{name: "every card", query: "present=1&model=toy", present: true, has: []string{"softmax", "logits", "hidden", "bars", "sampler", "kv"},
			lacks: []string{"share", "stored-models"}},
	} {
		html, _ := render(playgroundAt(c.query, ""))
		if got := strings.Contains(html, `data-present="on"`); got != c.present {
			t.Errorf("%s: data-present is %v, want %v", c.name, got, c.present)
		}
		for _, id := range c.has {
			if !strings.Contains(html, `id="`+id+`"`) {
				t.Errorf("%s: no #%s", c.name, id)
			}
		}
		for _, id := range c.lacks {
			if strings.Contains(html, `id="`+id+`"`) {
				t.Errorf("%s: #%s is drawn", c.name, id)
			}
		}
	}
}

// shareURL is the share panel's link field, its value.
var shareURL = regexp.MustCompile(`id="share-url"[^>]* value="([^"]*)"`)

// TestSharePresent is the share panel's presentation link: the share
// link with present and the cards typed, or, for a card the page does not
// have, the share link and why not.
func TestSharePresent(t *testing.T) {
	for _, c := range []struct {
		name, cards, url, err string
		present               bool
	}{
		{name: "not presenting", url: "https://x.test/?tour=2"},
		{name: "every card", present: true, url: "https://x.test/?tour=2&present=1"},
		{name: "two cards", present: true, cards: "Bars, softmax", url: "https://x.test/?tour=2&present=1&cards=bars,softmax"},
		{name: "a card the page lacks", present: true, cards: "slides", url: "https://x.test/?tour=2",
			err: `The link is not a presentation&#39;s: &#34;slides&#34; is not a card`},
	} {
		s := &Share{Origin: "https://x.test", Path: "/", Link: "/?tour=2", present: c.present, cards: c.cards}
		html, _ := render(s)
		url := shareURL.FindStringSubmatch(canonical(html))
		if url == nil || htmlText(url[1]) != c.url {
			t.Errorf("%s: the link is %q, want %s", c.name, url, c.url)
		}
		if has := strings.Contains(html, `id="share-cards-error"`); has != (c.err != "") || c.err != "" && !strings.Contains(html, c.err) {
			t.Errorf("%s: the error is not %q: %s", c.name, c.err, html)
		}
	}
}
