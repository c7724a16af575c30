//go:build !js

package ui

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestPrerender draws pages natively as links describe them: the hot
// views' numbers are in the HTML, the root says it is prerendered, and a
// session past the work cap or on a file the server lacks is refused
// before any computing.
func TestPrerender(t *testing.T) {
	for _, tc := range []struct {
		query   string
		wants   []string // in the page
		refused bool
	}{
		{query: "model=toy&steps=3", wants: []string{
			`id="prerendered"`, `data-prerendered="true"`, `data-link="model=toy&amp;steps=3"`, `data-ready="false"`,
			">3 steps</span>", `<th class="p">p</th>`, "The cat sat on the"}},
		{query: "embed=1&view=softmax&model=logits&vocab=The,cat,sat,on,the,mat&logits=-2.1,0.3,3.1,0.8,0.1,-0.5",
			wants: []string{`class="embed"`, `data-view="softmax"`, "0.8041"}},
		{query: "model=stories260K&prompt=Once%20upon%20a%20time&steps=8", wants: []string{"8 steps"}},
		// The attention lines, a hot view inside the KV card.
		{query: "embed=1&view=kv", wants: []string{`id="attention-lines-svg"`, "From the query of"}},
		{query: "model=stories260K&steps=4000", refused: true},
		{query: "model=stories260K&prompt=" + strings.Repeat("a", 4000), refused: true},
		{query: "model=file:0123456789abcdef:1000:model.gguf", refused: true},
		{query: "model=url:0123456789abcdef:1000:https://example.com/model.gguf", refused: true},
	} {
		var r Prerendering
		page, err := r.Page(tc.query, "/")
		var np *NotPrerenderedError
		switch {
		case tc.refused && !errors.As(err, &np):
			t.Errorf("%s: %v, want a NotPrerenderedError", tc.query, err)
		case !tc.refused && err != nil:
			t.Errorf("%s: %v", tc.query, err)
		}
		for _, w := range tc.wants {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %s", tc.query, w)
			}
		}
		if strings.Contains(page, `data-drawn`) || strings.Contains(page, `id="playground"`) {
			t.Errorf("%s: the prerendered root claims to be the live page", tc.query)
		}
		if strings.Contains(page, ` checked="false"`) {
			t.Errorf("%s: a box the live page leaves unchecked is checked (checked=\"false\")", tc.query)
		}
	}
}

// TestApplyPaint writes content and attributes into HTML as the browser's
// paint.js does, nested elements of the same name included.
func TestApplyPaint(t *testing.T) {
	page := `<main id="root" class="a"><div id="x"><div>old</div><div></div></div><div id="y" hidden></div><input id="f" value="1"></main>`
	got, err := applyPaint(page, map[string]string{
		"x":        "<b>new</b>",
		"y hidden": "false",
		"x style":  "width: 5px",
		"f value":  `a"b`,
		"missing":  "ignored",
	})
	want := `<main id="root" class="a"><div id="x" style="width: 5px"><b>new</b></div><div id="y"></div><input id="f" value="a&quot;b"></main>`
	if err != nil || got != want {
		t.Errorf("got %s, %v\nwant %s", got, err, want)
	}
}

// TestCompact removes go-app's indentation and keeps every text as the
// live page has it, in <pre> and <textarea> their line breaks too.
func TestCompact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"<label>\n  <input type=\"checkbox\">\n   show all \n  <span>6</span>\n   rows\n</label>", `<label><input type="checkbox"> show all <span>6</span> rows</label>`},
		{"<div>\n  <pre>a\n  b</pre>\n  <textarea id=\"c\">x\n  y</textarea>\n</div>", "<div><pre>a\n  b</pre><textarea id=\"c\">x\n  y</textarea></div>"},
		{"<p>\n  <preview>\n  </preview>\n</p>", "<p><preview></preview></p>"},
		{"<pre>open", "<pre>open"},
		{"<>\n  x", "<>x"},
		{"0</>\n0", "0</>0"},
	} {
		if got := compact(tc.in); got != tc.want {
			t.Errorf("compact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCompact: compact never panics, and keeps every character but line
// breaks and spaces.
func FuzzCompact(f *testing.F) {
	f.Add("<label>\n  <input>\n   a \n</label>")
	f.Add("<>\n<pre>x\n</pre><textarea")
	f.Fuzz(func(t *testing.T, page string) {
		got := compact(page)
		strip := strings.NewReplacer("\n", "", " ", "")
		if strip.Replace(got) != strip.Replace(page) {
			t.Errorf("compact(%q) = %q: more than white space changed", page, got)
		}
	})
}

// TestNextLink: a prerendered page names the link of its session one step
// on, which opens the session the page's Step takes, and names none where
// the link cannot say it or Step takes none.
func TestNextLink(t *testing.T) {
	for _, tc := range []struct{ query, next string }{
		{"", "steps=1"},
		{"model=toy&steps=3", "model=toy&steps=4"},
		{"model=stories260K&prompt=Once&temperature=0.9&top_p=0.8&seed=7&Steps=2&theme=dark", "model=stories260K&prompt=Once&seed=7&steps=3&temperature=0.9&theme=dark&top_p=0.8"},
		{"model=stories260K&steps=3&at=3", "model=stories260K&steps=4"},
		{"model=logits&logits=1,2,3", "logits=1%2C2%2C3&model=logits&steps=1"},
		{"model=logits&logits=1,2,3&steps=1", ""}, // hand-typed logits take one step
		{"model=toy&steps=3&at=2", "model=toy&steps=4"},
		{"model=toy&steps=many", ""},                       // a part left out
		{"model=toy&steps=4096", ""},                       // the most steps a link takes
		{"embed=1&view=tokens&model=toy", ""},              // an embed
		{"tour=2", ""},                                     // a stop of the tour
		{"model=toy&prompt=The+cat+sat&steps=3&x=%zz", ""}, // not a query
	} {
		p := openNatively(tc.query, "", "/", nil)
		next := NextLink(tc.query, p.ctl.Snapshot())
		if next != tc.next {
			t.Errorf("%q: next link %q, want %q", tc.query, next, tc.next)
		}
		if next == "" {
			continue
		}
		p.ctl.Step()
		stepped, opened := p.ctl.Snapshot(), openNatively(next, "", "/", nil).ctl.Snapshot()
		if stepped.Session.Trace.Text != opened.Session.Trace.Text || stepped.Shown != opened.Shown || !reflect.DeepEqual(stepped.Session.Spec, opened.Session.Spec) {
			t.Errorf("%q: Step shows %q at step %d; %q opens %q at step %d", tc.query, stepped.Session.Trace.Text, stepped.Shown, next, opened.Session.Trace.Text, opened.Shown)
		}
	}
	// Only the server's pages name it: a static site's page is the same
	// whatever the link.
	for _, steps := range []bool{false, true} {
		page, err := (&Prerendering{StepLinks: steps}).Page("model=toy", "/")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(page, `data-next="model=toy&amp;steps=1"`); got != steps {
			t.Errorf("StepLinks %v: data-next in the page: %v", steps, got)
		}
	}
}
