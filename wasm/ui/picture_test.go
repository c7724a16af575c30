//go:build !js

package ui

import (
	htmlpkg "html"
	"regexp"
	"slices"
	"strings"
	"testing"

	"nexttoken/engine/sampler"
)

// pictureLines are the picture's painted values of class field, line by
// line, as they read.
func pictureLines(byID map[string]string, field string) []string {
	var lines []string
	for _, m := range regexp.MustCompile(`<text class="pic-value `+field+`"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(byID["pic-values"], -1) {
		lines = append(lines, htmlpkg.UnescapeString(m[1]))
	}
	return lines
}

func TestPicture(t *testing.T) {
	// The toy model after "The cat", the worked example's step: every
	// number of it on the picture, as the cards show them.
	p := page(t, toySpec(0), -1)
	s := p.s()
	pic := picture(s, &board{}).(*Picture)
	frame, _ := render(pic)
	for _, part := range PictureParts {
		if n := strings.Count(frame, `data-part="`+part+`"`); n != 1 {
			t.Errorf("%d parts %q, want 1", n, part)
		}
		if !regexp.MustCompile(`data-card="[a-z]+" data-part="` + part + `"`).MatchString(canonical(frame)) {
			t.Errorf("part %q opens no card", part)
		}
	}
	lacks(t, "toy picture", frame, " of 6<", `=""`, "%!")
	contains(t, "toy picture", frame, `role="button"`, `tabindex="0"`, `aria-label="softmax: show its card"`,
		"layers 0 … 1 (× 2)", "2 heads · 2 KV heads", "each head its own K, V", "head size 2", "W: 6 × 4")
	lacks(t, "toy picture", frame, "highlight", "GQA")

	byID, _, _ := paintOf(pic, s)
	hot := map[string]string{}
	for _, v := range []painter{&HiddenCard{Model: s.Model()}, &SoftmaxCard{}, logitsCard(s, nil, p.ctl).(painter),
		samplerCard(s, nil, p.ctl).(painter), kvCard(s, nil, nil).(painter)} {
		got, _, _ := paintOf(v, s)
		for k, v := range got {
			hot[k] = v
		}
	}
	if got := pictureLines(byID, "pic-token"); !slices.Equal(got, []string{"“sat”"}) {
		t.Errorf("the picture's token is %q, want “sat”", got)
	}
	if got, want := pictureLines(byID, "pic-p"), "p = "+firstMatch(t, hot["sampler-step"], `\(p = ([^)]*)\)`); len(got) != 1 || got[0] != want {
		t.Errorf("the picture's p is %q, the sampler card's %q", got, want)
	}
	if got := pictureLines(byID, "pic-p"); !slices.Equal(got, []string{"p = 0.8041"}) {
		t.Errorf("the picture's p is %q, want the worked example's 0.8041", got)
	}
	if got, want := pictureLines(byID, "pic-kv-rows"), firstMatch(t, hot["kv-summary"], `id="kv-rows">(\d+)<`)+" rows"; len(got) != 1 || got[0] != want {
		t.Errorf("the picture's cache is %q, the KV card's %q", got, want)
	}
	if got, want := pictureLines(byID, "pic-kv-bytes"), firstMatch(t, hot["kv-summary"], `id="kv-bytes">([^<]*)<`); len(got) != 1 || got[0] != want {
		t.Errorf("the picture's cache is %q, the KV card's %q", got, want)
	}
	if got := append(pictureLines(byID, "pic-input"), pictureLines(byID, "pic-pos")...); !slices.Equal(got, []string{"“cat”", "position 1"}) {
		t.Errorf("the picture's input is %q, want “cat” at position 1", got)
	}

	// h, every number of it, as the hidden card shows it.
	hidden := regexp.MustCompile(`title="h\[\d\]">([^<]*)<`).FindAllStringSubmatch(hot["hidden-body"], -1)
	lines := pictureLines(byID, "pic-hidden")
	if len(hidden) != 4 || len(lines) != 4 {
		t.Fatalf("h has %d numbers on the hidden card, %d on the picture; want 4", len(hidden), len(lines))
	}
	for i, h := range hidden {
		if want := "h[" + itoa(i) + "] " + h[1]; lines[i] != want {
			t.Errorf("picture's h[%d] is %q, the card's %q", i, lines[i], want)
		}
	}
	// Every logit, as the logits card shows it, and every p as the
	// softmax card does: the worked example's.
	logits, probs := pictureLines(byID, "pic-logits"), pictureLines(byID, "pic-probs")
	softmaxPs := regexp.MustCompile(`<td class="p">([^<]*)</td>`).FindAllStringSubmatch(hot["softmax-body"], -1)
	if len(logits) != 6 || len(probs) != 6 || len(softmaxPs) != 6 {
		t.Fatalf("%d logits and %d p on the picture, %d p on the softmax card; want 6", len(logits), len(probs), len(softmaxPs))
	}
	for i, name := range []string{"The", "cat", "sat", "on", "the", "mat"} {
		if want := name + " " + hot["logit-input-"+itoa(i)+" value"]; logits[i] != want {
			t.Errorf("picture's logit %d is %q, the card's %q", i, logits[i], want)
		}
		if want := name + " " + softmaxPs[i][1]; probs[i] != want {
			t.Errorf("picture's p %d is %q, the card's %q", i, probs[i], want)
		}
	}
	if logits[0] != "The −2.1000" || probs[2] != "sat 0.8041" {
		t.Errorf("picture's logits %q and p %q are not the worked example's", logits, probs)
	}
	if got := pictureLines(byID, "pic-stages"); !slices.Equal(got, []string{"greedy: argmax"}) {
		t.Errorf("greedy stages %q", got)
	}
	if byID["picture-svg class"] != "picture-svg pulse-0" {
		t.Errorf("the pulse is %q at step 1", byID["picture-svg class"])
	}

	// Highlight marks the parts named, and only those.
	frame, _ = render(&Picture{Model: s.Model(), Highlight: []string{"softmax", "kv"}})
	if n := strings.Count(frame, "pic-part highlight"); n != 2 {
		t.Errorf("%d parts highlighted, want 2", n)
	}
	for _, part := range []string{"softmax", "kv"} {
		if !regexp.MustCompile(`class="pic-part highlight" data-card="[a-z]+" data-part="` + part + `"`).MatchString(canonical(frame)) {
			t.Errorf("part %q is not highlighted", part)
		}
	}

	// stories260K: 5 layers, 8 heads sharing 4 KV heads, a sampler that
	// draws, and of 512 tokens the top few.
	settings := sampler.DefaultSettings()
	settings.Temperature, settings.TopK, settings.Seed = 1, 40, 3
	p = page(t, stories(3, settings), -1)
	s = p.s()
	pic = picture(s, &board{}).(*Picture)
	frame, _ = render(pic)
	contains(t, "260K picture", frame, "top 3 of 512", "layers 0 … 4 (× 5)", "8 heads · 4 KV heads", "GQA: 2 heads share one", "W: 512 × 64", "W is E (tied)")
	byID, _, _ = paintOf(pic, s)
	if n := len(pictureLines(byID, "pic-logits")); n != maxPictureTop {
		t.Errorf("%d lines of logits for 512 tokens, want the top %d", n, maxPictureTop)
	}
	if got := pictureLines(byID, "pic-stages"); len(got) != 2 || got[0] != "top-k → 40" || !strings.HasPrefix(got[1], "draw u = ") {
		t.Errorf("the stages are %q, want top-k's survivors and the draw", got)
	}
	if got := pictureLines(byID, "pic-hidden"); got != nil {
		t.Errorf("64 numbers would not fit: the picture has h = %q", got)
	}
	kvText, _, _ := paintOf(kvCard(s, nil, nil).(painter), s)
	if got, want := pictureLines(byID, "pic-kv-rows"), firstMatch(t, kvText["kv-summary"], `id="kv-rows">(\d+)<`)+" rows"; len(got) != 1 || got[0] != want {
		t.Errorf("the picture's cache is %q, the KV card's %q", got, want)
	}

	// The page draws it after the controls, before the step's cards;
	// hand-typed logits have no network to draw.
	html, _ := drawPage(playgroundAt("model=toy", ""))
	if i, j := strings.Index(html, `id="picture"`), strings.Index(html, `id="hidden"`); i < 0 || j < i {
		t.Errorf("the picture is at %d, the first card at %d", i, j)
	}
	html, _ = drawPage(playgroundAt("logits=1,2&vocab=a,b", ""))
	lacks(t, "typed logits", html, `id="picture"`)
}

// firstMatch is the first group of re's first match in s.
func firstMatch(t *testing.T, s, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in %s", re, s)
	}
	return m[1]
}
