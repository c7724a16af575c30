//go:build !js

package ui

import (
	htmlpkg "html"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/modelfile"
	"nexttoken/engine/randmodel"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/wasm/play"
	"nexttoken/web/models"
)

// Unit tests of each view's HTML, rendered natively with app.HTMLString
// from real engine traces: no browser needed.

// page opens spec the way the playground does, selecting step sel (-1: the
// next step).
func page(t testing.TB, spec session.Spec, sel int) *testPage {
	t.Helper()
	p := &testPage{ctl: play.New(&play.Local{Load: models.Load}, serverHost{}, "/")}
	p.ctl.Open(spec)
	if s := p.ctl.Snapshot(); s.Session == nil || s.Notice != "" {
		t.Fatalf("%+v does not open: %s", spec, s.Notice)
	}
	if sel >= 0 {
		p.ctl.Select(sel)
	}
	return p
}

// testPage is a controller whose engine answers at once, as the page's
// does, for views to draw.
type testPage struct{ ctl *play.Controller }

func (p *testPage) s() play.Snapshot { return p.ctl.Snapshot() }

// d is the detail of the step on display.
func (p *testPage) d() *play.Detail { return p.ctl.Snapshot().Detail }

// paintOf is what hot view v paints for s, by element id, all of it
// together for text checks.
func paintOf(v painter, s play.Snapshot) (byID map[string]string, html, text string) {
	clear(painted)
	v.paint(s)
	byID = maps.Clone(painted)
	var all strings.Builder
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		all.WriteString(byID[id] + "\n")
	}
	html, text = render(app.Raw("<div>" + all.String() + "</div>"))
	return byID, html, text
}

// drawPage is the whole page as go-app renders it, and what its hot views
// paint.
func drawPage(p *Playground) (html, text string) {
	html, text = render(p)
	s := p.ctl.Snapshot()
	for _, v := range hotViews(s, p) {
		h, t := paintText(v, s)
		html, text = html+h, text+" "+t
	}
	return html, text
}

// playgroundAt is the whole page as a link opens it.
func playgroundAt(query, fragment string) *Playground {
	return openNatively(query, fragment, "/", nil)
}

var workedSpec = session.Spec{
	Model:   session.LogitsModel,
	Vocab:   []string{"The", "cat", "sat", "on", "the", "mat"},
	Logits:  []float64{-2.1, 0.3, 3.1, 0.8, 0.1, -0.5},
	Sampler: sampler.DefaultSettings(),
}

func toySpec(steps int) session.Spec {
	return session.Spec{Model: "toy", Prompt: "The cat", Sampler: sampler.DefaultSettings(), Steps: steps}
}

func stories(steps int, s sampler.Settings) session.Spec {
	return session.Spec{Model: "stories260K", Prompt: "Once upon a time", Sampler: s, Steps: steps}
}

// render is the HTML of a view, with tags stripped out for text checks.
func render(ui app.UI) (html, text string) {
	html = app.HTMLString(ui)
	return html, htmlText(html)
}

// htmlText is the text of html, as render gives it.
func htmlText(html string) string {
	text := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(html, " ")
	return htmlpkg.UnescapeString(strings.Join(strings.Fields(text), " "))
}

// tagAttrs is an opening tag with its attributes.
var tagAttrs = regexp.MustCompile(`<([a-zA-Z][\w-]*)((?:\s+[^\s=<>"/]+(?:="[^"]*")?)+)>`)

// canonical writes every opening tag's attributes in sorted order:
// app.HTMLString writes them in a map's order, which varies.
func canonical(html string) string {
	attr := regexp.MustCompile(`[^\s=<>"/]+(?:="[^"]*")?`)
	return tagAttrs.ReplaceAllStringFunc(html, func(tag string) string {
		m := tagAttrs.FindStringSubmatch(tag)
		attrs := attr.FindAllString(m[2], -1)
		slices.Sort(attrs)
		return "<" + m[1] + " " + strings.Join(attrs, " ") + ">"
	})
}

func contains(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	s = canonical(s)
	for _, w := range wants {
		if !strings.Contains(s, canonical(w)) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func lacks(t *testing.T, what, s string, unwanted ...string) {
	t.Helper()
	s = canonical(s)
	for _, w := range unwanted {
		if strings.Contains(s, canonical(w)) {
			t.Errorf("%s has %q:\n%s", what, w, s)
		}
	}
}

// paintText is hot view v as go-app renders it and as it paints s.
func paintText(v painter, s play.Snapshot) (string, string) {
	frame, text := render(v.(app.UI))
	_, html, painted := paintOf(v, s)
	return frame + html, text + " " + painted
}

func TestSoftmaxCard(t *testing.T) {
	p := page(t, workedSpec, -1)
	_, text := paintText(&SoftmaxCard{}, p.s())
	// The worked example, exactly: e^−5.2 = 0.005517, p(The) = 0.004436.
	contains(t, "softmax", text, "0.005517", "0.004436", "0.8041", "max = 3.1000", "Σ e^(ℓ − max) = 1.2437", "over all 6 tokens",
		"Greedy decoding (temperature 0)")
	lacks(t, "softmax", text, "ℓ/T")

	spec := workedSpec
	spec.Sampler.Temperature = 2
	p = page(t, spec, -1)
	_, text = paintText(&SoftmaxCard{}, p.s())
	// At T ≠ 1 the shifted columns are ℓ/T − max, and say so.
	contains(t, "softmax at T = 2", text, "ℓ/T − max", "e^(ℓ/T − max)", "T = 2 divides every logit")
	lacks(t, "softmax at T = 2", text, "e^(ℓ − max)")

	// A peaked distribution: the sum is not shown as a bare 1.
	spec = workedSpec
	spec.Logits = []float64{20, 0, 0}
	spec.Vocab = []string{"a", "b", "c"}
	p = page(t, spec, -1)
	_, text = paintText(&SoftmaxCard{}, p.s())
	contains(t, "peaked softmax", text, "Σ e^(ℓ − max) = 1.000000004") // e^0 + 2e^−20
	if strings.Contains(text, "Σ e^(ℓ − max) = 1 ") {
		t.Errorf("the sum shows as 1: %s", text)
	}
}

func TestLogitsCard(t *testing.T) {
	p := page(t, workedSpec, -1)
	c := logitsCard(p.s(), nil, p.ctl).(*LogitsCard)
	frame, _ := render(c)
	if n := strings.Count(frame, `id="logit-row-`); n != 6 {
		t.Errorf("%d rows, want the 6 tokens", n)
	}
	// Every row has its badge, hidden unless edited, so no column widens
	// when a logit is edited; sliders are for the pointer: keyboard users
	// are not stopped on them.
	if n := strings.Count(frame, `class="badge hidden"`); n != 6 {
		t.Errorf("%d hidden badges, want 6", n)
	}
	if n := strings.Count(frame, `tabindex="-1"`); n != 6 {
		t.Errorf("%d sliders out of the tab order, want 6", n)
	}
	contains(t, "logits", frame, `id="add-token"`)
	byID, _, _ := paintOf(c, p.s())
	for row, want := range []string{"−2.1000", "0.3000", "3.1000"} {
		if got := byID["logit-input-"+itoa(row)+" value"]; got != want || byID["logit-row-"+itoa(row)+" data-token"] != itoa(row) {
			t.Errorf("row %d holds token %s at %q, want token %d at %q", row, byID["logit-row-"+itoa(row)+" data-token"], got, row, want)
		}
	}

	p.ctl.EditLogit(0, 5, math.Inf(-1))
	byID, _, _ = paintOf(c, p.s())
	if got := byID["logit-input-5 value"]; got != "−∞" {
		t.Errorf("token 5's field after masking it: %q", got)
	}
	for row := range 6 {
		want := [2]string{"", "badge hidden"}
		if row == 5 {
			want = [2]string{"edited", "badge"}
		}
		if got := [2]string{byID["logit-row-"+itoa(row)+" class"], byID["logit-badge-"+itoa(row)+" class"]}; got != want {
			t.Errorf("row %d after the edit of token 5: row and badge %q, want %q", row, got, want)
		}
	}

	p = page(t, stories(0, sampler.DefaultSettings()), -1)
	c = logitsCard(p.s(), nil, p.ctl).(*LogitsCard)
	frame, _ = render(c)
	if n := strings.Count(frame, `id="logit-row-`); n != maxRows {
		t.Errorf("%d rows of 512 tokens, want the %d most probable", n, maxRows)
	}
	byID, _, text := paintOf(c, p.s())
	contains(t, "260K logits", text, "The 24 most probable of 512 tokens")
	if top := p.d().Step.Top[0].Token; byID["logit-row-0 data-token"] != itoa(top) {
		t.Errorf("the first row holds token %s, want the most probable, %d", byID["logit-row-0 data-token"], top)
	}
	c.search("zzzq")
	byID, _, text = paintOf(c, p.s())
	contains(t, "a search with no match", text, "No token matches “zzzq”.")
	lacks(t, "a search with no match", text, "0 of 512")
	if byID["logit-row-0 hidden"] != "true" {
		t.Errorf("a search with no match shows its first row")
	}
	c.search("Lily")
	byID, _, _ = paintOf(c, p.s())
	if !strings.Contains(byID["logit-label-0"], "Lily") || byID["logit-row-0 hidden"] != "false" {
		t.Errorf("a search for Lily lists %q first", byID["logit-label-0"])
	}
	// The byte tokens <0x..> match x, and none is among the most
	// probable: their numbers come with the detail the search asked for.
	c.search("x")
	byID, _, _ = paintOf(c, p.s())
	if len(c.order) != maxRows {
		t.Fatalf("a search for x lists %d tokens, want %d", len(c.order), maxRows)
	}
	for i := range c.order {
		if _, listed := p.d().Row(c.order[i]); !listed || byID["logit-p-"+itoa(i)] == "–" {
			t.Errorf("match %d, token %d, has p %q (in the detail: %v)", i, c.order[i], byID["logit-p-"+itoa(i)], listed)
		}
	}
}

// TestLogitsCardHoldsRows checks that while a control is held the rows keep
// their tokens, even when an edit reorders the probabilities, and only
// their numbers are painted; let go, they take the new order.
func TestLogitsCardHoldsRows(t *testing.T) {
	p := page(t, stories(0, sampler.DefaultSettings()), -1)
	c := logitsCard(p.s(), nil, p.ctl).(*LogitsCard)
	paintOf(c, p.s())
	before := c.order
	third := before[2]
	c.hold()
	p.ctl.EditLogit(0, third, 40) // now the most probable
	byID, _, _ := paintOf(c, p.s())
	if !slices.Equal(c.order, before) {
		t.Errorf("rows moved while held: %v, then %v", before, c.order)
	}
	if _, ok := byID["logit-row-2 data-token"]; ok {
		t.Errorf("a row was given another token while held")
	}
	if got := byID["logit-p-2"]; got != "1" {
		t.Errorf("the held row's p is %q, want the edit's 1", got)
	}
	// A held row whose token falls out of the most probable keeps its
	// numbers: the card asked for them when it held its rows.
	low := before[12] // below the model's own first 8 (Detail.ComputedTop) too
	p.ctl.EditLogit(0, low, -40)
	byID, _, _ = paintOf(c, p.s())
	if _, listed := p.d().Row(low); !listed || byID["logit-p-12"] == "–" || slices.Contains(p.d().Listed, low) || slices.Contains(p.d().ComputedTop, low) {
		t.Errorf("a held row edited to −40: p %q, in the detail %v, listed %v", byID["logit-p-12"], listed, p.d().Listed)
	}
	c.held = false
	byID, _, _ = paintOf(c, p.s())
	if c.order[0] != third || byID["logit-row-0 data-token"] != itoa(third) {
		t.Errorf("after letting go the rows are %v, want %d first", c.order, third)
	}
}

func TestBarsCard(t *testing.T) {
	spec := workedSpec
	spec.Sampler = sampler.Settings{Temperature: 1, TopP: 0.9, Seed: 42}
	p := page(t, spec, -1)
	_, html, text := paintOf(&BarsCard{}, p.s())
	// Top-p 0.9 keeps sat, on and cat: the others are marked removed, the
	// survivors get their renormalised probability (sat: 0.8041/0.9336).
	if n := strings.Count(html, "bar removed"); n != 3 {
		t.Errorf("%d bars marked removed, want 3", n)
	}
	contains(t, "bars", text, "✕ top-p", "→ 0.8613", "renormalised")

	p = page(t, workedSpec, -1)
	_, html, text = paintOf(&BarsCard{}, p.s())
	lacks(t, "greedy bars", html, "bar removed")
	lacks(t, "greedy bars", text, "→")
	contains(t, "greedy bars", html, `class="bar chosen`)
}

func TestSamplerCard(t *testing.T) {
	spec := workedSpec
	spec.Sampler = sampler.Settings{Temperature: 1, TopP: 0.9, Seed: 42}
	p := page(t, spec, -1)
	html, text := samplerText(p)
	contains(t, "sampler", html, `id="set-temperature"`, `id="slide-temperature"`, `id="set-top_p"`, `id="slide-top_p"`)
	// The draw u = 0.3391 lands on sat, whose p = 0.8041 became 0.8613
	// once top-p's survivors were renormalised: the page says so.
	contains(t, "sampler", text, "u = 0.3391", "falls in [0, 0.8613)", "p = 0.8041 became 0.8613", "top-p kept 3 of 6 tokens")

	p = page(t, stories(3, sampler.Settings{Mode: sampler.RunC, Temperature: 1, TopP: 0.9, Seed: 7}), -1)
	_, text = samplerText(p)
	contains(t, "run.c sampler", text, "u × ", "scales u by their mass", "Continuing Once upon a time")
	lacks(t, "run.c sampler", text, "became")

	// llama.cpp's chain: its stage names, its draw scaled by its unnormalised sum.
	p = page(t, stories(3, sampler.Settings{Mode: sampler.LlamaCpp, Temperature: 1.5, TopK: 40, TopP: 0.95, MinP: 0.05, RepetitionPenalty: 1, Seed: 7}), -1)
	html, text = samplerText(p)
	contains(t, "llama.cpp sampler", html, `id="set-min_p"`)
	selected(t, html, "llama.cpp")
	contains(t, "llama.cpp sampler", text, "top-k kept 40 of 512 tokens", "temp-ext", "llama.cpp's dist walks its candidates")
	// Hugging Face's: the transformers classes, and the note on its draw.
	p = page(t, stories(3, sampler.Settings{Mode: sampler.HF, Temperature: 1, TopK: 50, RepetitionPenalty: 1, Seed: 7}), -1)
	html, text = samplerText(p)
	selected(t, html, "hf")
	contains(t, "hf sampler", text, "TopKLogitsWarper kept", "torch.multinomial's generator cannot be reproduced")
}

// samplerText is the sampler card's HTML and text: its settings and the
// step's part it paints.
func samplerText(p *testPage) (html, text string) {
	c := samplerCard(p.s(), nil, p.ctl).(*SamplerCard)
	settings, t1 := render(c)
	_, step, t2 := paintOf(c, p.s())
	return settings + step, t1 + " " + t2
}

// selected checks that the option of value is the selected one, whatever
// the order go-app writes its attributes in (a map's).
func selected(t *testing.T, html, value string) {
	t.Helper()
	re := regexp.MustCompile(`<option [^>]*>`)
	for _, o := range re.FindAllString(html, -1) {
		if strings.Contains(o, `value="`+value+`"`) {
			if !strings.Contains(o, " selected") {
				t.Errorf("option %s is not selected: %s", value, o)
			}
			return
		}
	}
	t.Errorf("no option %s in\n%s", value, html)
}

func TestHiddenCard(t *testing.T) {
	p := page(t, toySpec(0), -1)
	p.ctl.EditLogit(0, 2, -1)
	_, html, text := paintOf(&HiddenCard{Model: p.s().Model()}, p.s())
	// W·h is what the model computed, 3.1 for "sat", not the edited −1.
	contains(t, "LM head", html, `id="lm-head"`, "3.1000")
	contains(t, "LM head", text, "your edits on top of it")
	if strings.Count(html, "<tr>") != 7 {
		t.Errorf("want a header and 6 rows of W:\n%s", html)
	}

	p = page(t, stories(0, sampler.DefaultSettings()), -1)
	hidden := &HiddenCard{Model: p.s().Model()}
	_, html, text = paintOf(hidden, p.s())
	html += app.HTMLString(hidden)
	text += " " + func() string { _, t := render(hidden); return t }()
	lacks(t, "260K head", html, `id="lm-head"`)
	contains(t, "260K head", text, "W is the 512 × 64 token-embedding matrix")
}

func TestKVCard(t *testing.T) {
	// The toy model after "The cat" and two steps: 4 positions, every
	// number in a table, the newest row marked.
	p := page(t, toySpec(2), -1)
	html, text := paintText(kvCard(p.s(), nil, p.ctl).(painter), p.s())
	if n := strings.Count(html, `class="kv-row`); n != 4 {
		t.Errorf("%d cache rows, want 4", n)
	}
	if n := strings.Count(html, `class="kv-row newest"`); n != 1 {
		t.Errorf("%d newest rows, want 1", n)
	}
	contains(t, "toy cache", text, "4 positions of 16", "prefill", "Attention of the query of “on” (position 3)")
	// Attention over a short context: a column per token, labelled.
	contains(t, "toy attention", html, `title="position 0"`, `>The<`, `>cat<`)

	// Step 1 selected: the cache as it read it, 3 rows, and its attention.
	p.ctl.Select(1)
	html, text = paintText(kvCard(p.s(), nil, p.ctl).(painter), p.s())
	if n := strings.Count(html, `class="kv-row`); n != 3 {
		t.Errorf("step 2 read %d rows, want 3", n)
	}
	contains(t, "toy cache at step 2", text, "3 positions", "query of “sat” (position 2)")
	lacks(t, "toy cache at step 2", text, "“on”")

	// stories260K: heat maps on canvases, a scale, readouts.
	p = page(t, stories(20, sampler.DefaultSettings()), -1)
	html, text = paintText(kvCard(p.s(), nil, p.ctl).(painter), p.s())
	contains(t, "260K cache", html, `id="canvas-keys"`, `id="canvas-values"`, `id="canvas-attention"`, `class="newest-row"`, "gradient")
	contains(t, "260K cache", text, "25 positions of 512", "head 0:", "step 20")
	lacks(t, "260K cache", html, `class="kv-row`, "<img", `disabled="false"`)
	// The attention map's axes: a label per head, and the context's tokens,
	// the first and the query's own among them.
	if n := strings.Count(html, "<span>head "); n != p.s().Model().Heads {
		t.Errorf("%d head labels, want %d", n, p.s().Model().Heads)
	}
	first, query := p.s().Session.Trace.Prompt[0].Piece, p.s().Session.Trace.Steps[19].Piece
	contains(t, "260K attention axis", html, `class="att-axis"`, `title="position 0"`, ">"+visible(first)+"<",
		`title="position 24"`, ">"+visible(query)+"<")

	// No steps yet: the growth chart is a point at prefill, not an empty box.
	p = page(t, stories(0, sampler.DefaultSettings()), -1)
	kv := kvCard(p.s(), nil, p.ctl).(painter)
	byID, html, _ := paintOf(kv, p.s())
	contains(t, "growth at 0 steps", html, "prefill (5)")
	if d, at := byID["kv-growth-path d"], byID["kv-growth-shown style"]; d != "M0.0 507.0" || !strings.HasPrefix(at, "left:0.000%") {
		t.Errorf("growth at 0 steps: path %q, marked at %q; want a point at prefill", d, at)
	}
	// Steps added and taken back: the line grown and shrunk is the line
	// drawn afresh.
	for _, act := range []func(){p.ctl.Step, p.ctl.Step, p.ctl.Undo} {
		act()
		grown, _, _ := paintOf(kv, p.s())
		fresh, _, _ := paintOf(kvCard(p.s(), nil, p.ctl).(painter), p.s())
		if grown["kv-growth-path d"] != fresh["kv-growth-path d"] {
			t.Errorf("%d steps: the line is %q, drawn afresh %q", p.s().Steps(), grown["kv-growth-path d"], fresh["kv-growth-path d"])
		}
	}

	p = page(t, workedSpec, -1)
	_, text = render(kvCard(p.s(), nil, p.ctl))
	contains(t, "no cache", text, "no model, so no cache")

	// A model whose architecture adds to llama2.c's says what: Qwen2's
	// biases and RoPE on halves, Llama 3's frequency factors, Gemma's
	// scaled embedding and GELU, GPT-2's LayerNorm, positions and biases;
	// llama2.c's none.
	for _, tc := range []struct{ arch, says string }{
		{"qwen2", "a learned bias is added to every query, key and value before RoPE; RoPE rotates the pairs (i, i + 32) of each head of 64"},
		{"llama3", "RoPE's base is 500000, not 10000; RoPE turns each pair 1/f times as fast, f from 1 to 32"},
		{"gpt2", "every projection adds a learned bias; the feed-forward layer is W2·gelu(W3·x), with no gate; the norms are LayerNorm (the mean subtracted, a bias added), not RMSNorm; a learned position embedding is added to the token's, and there is no RoPE"},
		{"gemma", "RoPE rotates the pairs (i, i + 32) of each head of 64, not adjacent pairs; the token's embedding is multiplied by √128 before the first layer; the feed-forward layer gates with GELU, not SiLU"},
		{"phi3", "RoPE rotates the pairs (i, i + 32) of each head of 64, not adjacent pairs; every layer attends only to the latest 4 positions (a sliding window): older ones get no weight, though the cache keeps them"},
		{"qwen3", "RoPE rotates the pairs (i, i + 32) of each head of 64, not adjacent pairs; RoPE's base is 1e+06, not 10000; each head's query and key are RMS-normalised before RoPE"},
		{"gemma2", "RoPE rotates the pairs (i, i + 32) of each head of 64, not adjacent pairs; the token's embedding is multiplied by √128 before the first layer; the feed-forward layer gates with GELU, not SiLU; the outputs of attention and of the feed-forward layer are RMS-normalised before they join the residual stream; " +
			"every layer but layers 1, 3, … (one in 2) attends only to the latest 4 positions (a sliding window): older ones get no weight there, though the cache keeps them for the other layers; " +
			"attention scores are soft-capped, s → 2·tanh(s/2), before the softmax; the logits are soft-capped, ℓ → 6·tanh(ℓ/6): none exceeds ±6"},
		{"gemma3", "RoPE rotates the pairs (i, i + 32) of each head of 64, not adjacent pairs; RoPE's base is 1e+06, not 10000; the token's embedding is multiplied by √128 before the first layer; the feed-forward layer gates with GELU, not SiLU; each head's query and key are RMS-normalised before RoPE; the outputs of attention and of the feed-forward layer are RMS-normalised before they join the residual stream; " +
			"every layer but layers 5, 11, … (one in 6) attends only to the latest 4 positions (a sliding window): older ones get no weight there, though the cache keeps them for the other layers; the sliding-window layers' RoPE base is 10000"},
	} {
		m, _, err := randmodel.Build(checkpoint.Config{Dim: 128, HiddenDim: 64, Layers: 1, Heads: 2, KVHeads: 1, VocabSize: 354, SeqLen: 8, SharedHead: true}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if err := randmodel.Extend(m, tc.arch, 1); err != nil {
			t.Fatal(err)
		}
		_, text := render(&KVCard{Layers: 1, KVHeads: 1, HeadSize: 64, Extras: m.Extras()})
		contains(t, tc.arch+" cache", text, "What this model's architecture does beyond llama2.c's: "+tc.says)
	}
	html, text = render(kvCard(page(t, toySpec(1), -1).s(), nil, nil))
	lacks(t, "toy cache", text, "architecture does")
	contains(t, "toy cache", html, `<p id="kv-extras" class="hint" hidden>`)

	// The logits say when they are soft-capped (Gemma 2's), else nothing.
	toy := page(t, toySpec(1), -1).s().Model()
	html, _ = render(&LogitsCard{Model: toy})
	contains(t, "toy logits", html, `<p id="logits-softcap" class="hint" hidden></p>`)
	capped := *toy
	capped.Softcap = 30
	_, text = render(&LogitsCard{Model: &capped})
	contains(t, "capped logits", text, "These logits are soft-capped: ℓ = 30·tanh(z/30) of the classifier's output z, so none exceeds ±30.")
}

func TestStripAndControls(t *testing.T) {
	p := page(t, toySpec(2), -1)
	html, text := render(playgroundAt("model=toy&steps=2", "").strip(p.s()))
	if n := strings.Count(html, "tok prompt"); n != 3 { // 2 + the legend's
		t.Errorf("%d prompt chips, want 2 and the legend's", n)
	}
	contains(t, "strip", html, `data-step="0"`, `data-step="1"`, ">the?<")
	contains(t, "strip legend", text, "␣ space", "↵ new line", "∅ adds no text", "prefill")
	contains(t, "text", html, `>The cat sat on<`)

	html, text = render(controls(p.s(), p.ctl, nil))
	contains(t, "controls", text, "2 steps", "Redo")
	if !regexp.MustCompile(`<button[^>]*id="redo"[^>]*disabled|<button[^>]*disabled[^>]*id="redo"`).MatchString(html) {
		t.Errorf("Redo is not disabled with nothing to redo:\n%s", html)
	}

	p = page(t, toySpec(100), -1)
	_, text = render(controls(p.s(), p.ctl, nil))
	contains(t, "ended controls", text, "15 steps · the context of 16 tokens is full")
	_, text = render(stepViews(p.s(), p.ctl, nil))
	contains(t, "ended card", text, "The context of 16 tokens is full.", "Or Undo")
	lacks(t, "ended card", text, "has ended: ")
}

// TestShareEmbedHeight: the open panel's embed code takes the height its
// view reported in the chosen theme and column width, or a default one.
func TestShareEmbedHeight(t *testing.T) {
	s := &Share{Spec: workedSpec, Origin: "https://x.example", Path: "/", Link: "/#s1.abc", embedView: "kv",
		embedTheme: "auto", embedWidth: 720, heights: map[string]int{"kv auto 720": 731, "kv auto 360": 1204}, open: true}
	html, _ := render(s)
	contains(t, "embed code", html, `height=\"731\"`)
	s.embedWidth = 360
	html, _ = render(s)
	contains(t, "embed code in a narrower column", html, `height=\"1204\"`)
	s.embedView = "tokens"
	html, _ = render(s)
	contains(t, "embed code without a measured height", html, `height=\"480\"`)
}

// TestSharePendingFiles: while the browser hashes a model's files, the
// share panel offers no link, no embed and no preview, and says why; once
// the model is named by the hash, it offers them.
func TestSharePendingFiles(t *testing.T) {
	spec := workedSpec
	spec.Model = modelfile.Ref{Size: 1000, Name: "m.gguf"}.String()
	s := &Share{Spec: spec, Origin: "https://x.example", Path: "/", Link: "/", embedTheme: "auto", open: true}
	html, text := render(s)
	contains(t, "pending", text, "still computing")
	contains(t, "pending", html, `<button disabled id="copy-embed">`)
	lacks(t, "pending", html, "https://x.example/", "embed-preview", "share-url", "copy-link")
	s.Spec.Model = modelfile.Ref{Hash: "0123456789abcdef", Size: 1000, Name: "m.gguf"}.String()
	s.Link = "/#s1.abc"
	html, text = render(s)
	lacks(t, "hashed", text, "still computing")
	lacks(t, "hashed", html, "disabled")
	contains(t, "hashed", html, "https://x.example/#s1.abc", "embed-preview")
}

// TestShareEmbedChoices: the panel's theme, column width and script
// choices each change the snippet, and the preview takes the width.
func TestShareEmbedChoices(t *testing.T) {
	for _, c := range []struct {
		name, path    string
		theme         string
		width         int
		script        bool
		want, lacking []string
	}{
		{"default", "/sub/", "", 0, false,
			[]string{`view=softmax&amp;`, `width=\"720\"`, `height=\"480\"`, `loading=\"lazy\"`, `title=\"nexttoken: softmax\"`, `width:720px`},
			[]string{"theme=", "<script", "embed.js"}},
		{"dark", "/sub/", "dark", 0, false, []string{`view=softmax&amp;theme=dark`}, []string{"<script"}},
		{"light in 480 px", "/sub/", "light", 480, false, []string{`theme=light`, `width=\"480\"`, `width:480px`}, []string{`width=\"720\"`}},
		{"auto leaves the theme out", "/sub/", "auto", 360, false, []string{`width=\"360\"`}, []string{"theme="}},
		{"with the script", "/sub/", "", 0, true,
			[]string{`></iframe>\n<script src=\"https://x.example/sub/web/embed.js\" async></script>"`}, nil},
		{"with the script, from a page's file", "/sub/index.html", "", 0, true,
			[]string{`src=\"https://x.example/sub/index.html?embed=1`, `<script src=\"https://x.example/sub/web/embed.js\" async></script>"`}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Share{Spec: workedSpec, Origin: "https://x.example", Path: c.path, Link: c.path + "#s1.abc",
				embedTheme: c.theme, embedWidth: c.width, withScript: c.script, open: true}
			html, _ := render(s)
			contains(t, c.name, html, c.want...)
			lacks(t, c.name, html, c.lacking...)
			// Attributes come in any order.
			presets := regexp.MustCompile(`<button [^>]*value="(\d+)"[^>]*>`).FindAllStringSubmatch(html, -1)
			if len(presets) != len(embedWidths) {
				t.Errorf("%s: %d preset widths, want %d", c.name, len(presets), len(embedWidths))
			}
			for _, m := range presets {
				// go-app writes a "true" attribute bare.
				if !strings.Contains(m[0], `aria-pressed="false"`) != (m[1] == itoa(s.embedWidth)) {
					t.Errorf("%s: the column width is %d px, the preset %s", c.name, s.embedWidth, m[0])
				}
			}
			if box := regexp.MustCompile(`<input [^>]*id="embed-script"[^>]*>`).FindString(html); (strings.Contains(box, "checked") && !strings.Contains(box, `checked="false"`)) != c.script {
				t.Errorf("%s: the script box is %s", c.name, box)
			}
		})
	}
}

// TestShareWidthField: the column width is a number field that takes any
// width from 280 to 1600 px, the presets one click away beside it, and the
// preview and the snippet take the width typed, with the height the
// preview reported at it.
func TestShareWidthField(t *testing.T) {
	for _, c := range []struct {
		name          string
		width         int
		heights       map[string]int
		want, lacking []string
	}{
		{"a width of one's own", 555, map[string]int{"softmax auto 555": 812, "softmax auto 600": 760},
			[]string{`<input aria-describedby="embed-width-error" id="embed-width" max="1600" min="280"`, `type="number" value="555">`,
				`width=\"555\" height=\"812\"`, `width:555px`, `height:812px`, "in a column of 555 px, the snippet&#39;s width"},
			[]string{`<button aria-pressed value`, "<select id=\"embed-width\"", `id="embed-width-error"`}},
		{"a preset", 480, nil,
			[]string{`type="number" value="480">`, `<button aria-pressed value="480">480</button>`, `width=\"480\" height=\"480\"`, `width:480px`},
			[]string{`id="embed-width-error"`}},
		{"the widest", 1600, map[string]int{"softmax auto 1600": 402},
			[]string{`value="1600">`, `width=\"1600\" height=\"402\"`, `width:1600px`, "scrolls sideways where the panel is narrower"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &Share{Spec: workedSpec, Origin: "https://x.example", Path: "/", Link: "/#s1.abc",
				embedWidth: c.width, heights: c.heights, open: true}
			html, _ := render(s)
			contains(t, c.name, html, c.want...)
			lacks(t, c.name, html, c.lacking...)
		})
	}
}

// TestShareBadWidthKeepsTheLast: a width refused is explained by the
// field, in the writer's words, and the preview and the snippet keep the
// last good width and its height; a good width then clears the error.
func TestShareBadWidthKeepsTheLast(t *testing.T) {
	s := &Share{Spec: workedSpec, Origin: "https://x.example", Path: "/", Link: "/#s1.abc", embedView: "kv",
		embedWidth: 720, heights: map[string]int{"kv auto 555": 731}, open: true}
	if !s.setWidth("555", false) {
		t.Fatalf("555 px refused: %s", s.widthError)
	}
	html, _ := render(s)
	contains(t, "555 px", html, `width=\"555\" height=\"731\"`, `width:555px`)
	// What the writer would lose: the snippet, the preview and the field's
	// width.
	frame := regexp.MustCompile(`<iframe [^>]*id="embed-preview"[^>]*>`)
	field := regexp.MustCompile(`<input [^>]*id="embed-width"[^>]*>`)
	code, goodFrame, goodField := s.code, canonical(frame.FindString(html)), canonical(field.FindString(html))
	for _, c := range []struct {
		text     string
		badInput bool
		want     string
	}{
		{"", false, "Type your column's width in pixels, a whole number from 280 to 1600."},
		{"", true, "That is not a number: type your column's width in pixels, a whole number from 280 to 1600."},
		{"wide", false, `"wide" is not a number: type your column's width`},
		{"NaN", false, `"NaN" is not a number`},
		{"0", false, "0 px is too narrow: type your column's width in pixels, a whole number from 280 to 1600."},
		{"-720", false, "-720 px is too narrow"},
		{"100000", false, "100000 px is too wide: type your column's width in pixels, a whole number from 280 to 1600."},
		{"1e9", false, "1e9 px is too wide"},
		{"555.5", false, "555.5 px is not a whole number: type"},
		{strings.Repeat("9", 4000), false, "…9999999999999999 px is too wide"},
	} {
		if s.setWidth(c.text, c.badInput) {
			t.Errorf("%q (bad input %v) taken as %d px", c.text, c.badInput, s.embedWidth)
		}
		html, text := render(s)
		contains(t, "the error", html, `<span class="field-error" id="embed-width-error" role="alert">`)
		contains(t, "the error", text, c.want, "The last good width, 555 px, is back.")
		if s.code != code || canonical(frame.FindString(html)) != goodFrame || canonical(field.FindString(html)) != goodField {
			t.Errorf("after %q: the snippet\n%s\nthe preview %s, the field %s; were\n%s\n%s, %s", c.text,
				s.code, frame.FindString(html), field.FindString(html), code, goodFrame, goodField)
		}
	}
	if !s.setWidth("600", false) || s.widthError != "" {
		t.Errorf("600 px after an error: taken %v, error %q", s.embedWidth == 600, s.widthError)
	}
}

// TestParseColumnWidth: a column width is a whole number of pixels from
// 280 to 1600, spaces around it allowed.
func TestParseColumnWidth(t *testing.T) {
	for _, c := range []struct {
		text     string
		badInput bool
		want     int // 0: refused
	}{
		{"555", false, 555}, {" 720 ", false, 720}, {"280", false, 280}, {"1600", false, 1600}, {"1e3", false, 1000},
		{"279", false, 0}, {"1601", false, 0}, {"", false, 0}, {"", true, 0}, {"12px", false, 0}, {"0x200", false, 0},
		{"NaN", false, 0}, {"Inf", false, 0}, {"-Inf", false, 0}, {"1e999", false, 0}, {"600.25", false, 0}, {"-0", false, 0},
	} {
		w, err := parseColumnWidth(c.text, c.badInput)
		if w != c.want || (err == nil) != (c.want != 0) {
			t.Errorf("parseColumnWidth(%q, %v) = %d, %v; want %d", c.text, c.badInput, w, err, c.want)
		}
	}
}

// FuzzParseColumnWidth: a width typed is outside input. A width taken is
// in range and whole; a width refused is refused with a short message
// however long the text.
func FuzzParseColumnWidth(f *testing.F) {
	for _, s := range []string{"555", "1e3", "0x1p9", "555.5", "-0", "NaN", "Inf", "1e999", "", " 720 ", "wide", "٥٥٥"} {
		f.Add(s, false)
	}
	f.Add("", true)
	f.Fuzz(func(t *testing.T, text string, badInput bool) {
		w, err := parseColumnWidth(text, badInput)
		switch {
		case err == nil && (w < minEmbedWidth || w > maxEmbedWidth || badInput):
			t.Errorf("parseColumnWidth(%q, %v) took %d px", text, badInput, w)
		case err != nil && (w != 0 || len(err.Error()) > 400):
			t.Errorf("parseColumnWidth(%q, %v) = %d, %q", text, badInput, w, err)
		}
	})
}

func TestHeaderPromptError(t *testing.T) {
	html, text := render(&Header{Model: "toy", Prompt: "The dog", Error: `unknown word "dog"`})
	contains(t, "header", html, `id="prompt-error"`, `maxlength="4096"`, `href="docs/"`)
	contains(t, "header", text, `unknown word "dog"`)
	html, _ = render(&Header{Model: session.LogitsModel})
	lacks(t, "worked example header", html, `id="prompt"`)
	lacks(t, "header", html, `selected="false"`)
}

// TestPlaygroundOpensLinks renders the whole page for a few links.
func TestPlaygroundOpensLinks(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"Next step", "sat"}},
		{"model=stories260K&prompt=Lily&steps=5&temperature=0.9&seed=3", []string{"Next step", "5 steps"}},
		{"embed=1&view=kv&theme=dark", []string{"KV cache", "Open in nexttoken"}},
		{"embed=1&view=timeline&model=stories260K&prompt=Lily&steps=5&at=2", []string{"Timeline", "step 2 ", "5 steps", "Open in nexttoken"}},
		{"embed=1&view=nope", []string{"The link's view, “nope”, is not one of all, softmax,", "So this frame shows no view", "Open in nexttoken"}},
		{"theme=purple", []string{"The link's theme, “purple”, is not one of auto, light, dark, so the page follows the system's colours."}},
		{"model=stories260K&prompt=100%", []string{"The link's prompt, “100%”, has a % that starts no escape (a percent sign is %25)", "Once upon a time"}},
		{"model=stories260K&steps=3&at=9", []string{"The link shows step 9, but its session has 3", "Step 3: position"}},
		{"sampler=hf", []string{"Hugging Face's chain"}},
		{"utm_source=x&fbclid=y&Temperature=0.5", []string{"Next step", "T = 0.5"}},
		{"model=toy&steps=3&at=2", []string{"Step 2: position 2"}},
		{`chat=[{"role":"user","content":"Hi"}]`, []string{"This link's session could not be opened: No chat template: the model toy has none, so it takes a prompt, not messages."}},
	} {
		_, text := drawPage(playgroundAt(tc.query, ""))
		contains(t, tc.query, text, tc.want...)
	}
}

func TestCompareCard(t *testing.T) {
	spec := session.Spec{Model: session.LogitsModel, Vocab: []string{"a", "b", "c"}, Logits: []float64{2, 1, 0},
		Sampler: sampler.Settings{Mode: sampler.Chain, Temperature: 2, MinP: 0.3, Seed: 42}}
	p := page(t, spec, -1)
	html, _ := render(compareCard(p.s(), p.d(), p.ctl))
	lacks(t, "closed compare card", html, "<ol", "compare-tv")

	p.ctl.SetCompareOpen(true)
	html, text := render(compareCard(p.s(), p.d(), p.ctl))
	// llama.cpp applies min-p at temperature 1: .3 × .665 > .090 removes c
	// (package compare works this out); nexttoken's chain divides by T first.
	contains(t, "compare card", text, "nexttoken's chain", "min-p: 3 kept", "llama.cpp (edskypmxt)",
		"min-p: 2 kept, removed 1 (9.003% of the probability) · a 0.6652 → 0.7311, b 0.2447 → 0.2689", "Total variation distance 0.1863")
	if n := strings.Count(html, `class="differs"`); n != 1 {
		t.Errorf("%d rows marked as drawable in one chain only, want 1 (c):\n%s", n, html)
	}

	// Their own defaults: llama.cpp at temperature 0.8 with min-p 0.05.
	p.ctl.SetCompareOwn(true)
	p.ctl.SetCompareChain(1, "hf")
	_, text = render(compareCard(p.s(), p.d(), p.ctl))
	contains(t, "compare card, hf", text, "Hugging Face generate()", "TopKLogitsWarper: 3 kept", "torch.multinomial")

	// Draws: a column of counts beside each distribution.
	p.ctl.ToggleCompareDraws()
	_, text = render(compareCard(p.s(), p.d(), p.ctl))
	contains(t, "compare card with draws", text, "drawn in A", "drawn in B", "Hide the draws")
	p.ctl.ToggleCompareDraws()

	// llama.cpp with the reader's own stages, and letters it does not know.
	p.ctl.SetCompareChain(1, "kt")
	html, text = render(compareCard(p.s(), p.d(), p.ctl))
	contains(t, "compare card, kt", text, "llama.cpp, kt", "top-k: 3 kept")
	contains(t, "compare card, kt", html, `id="compare-b-seq"`)
	// The stage editor: kt's two stages on, in order, and llama.cpp's
	// others off, each with its button; none for the fixed chains.
	contains(t, "compare card, kt editor", html, `id="compare-b-stages"`, `title="switch top-k off"`,
		`title="switch min-p on"`)
	lacks(t, "compare card, kt editor", html, `id="compare-a-stages"`, `title="switch temperature on"`)
	p.ctl.SetCompareChain(1, "kq")
	_, text = render(compareCard(p.s(), p.d(), p.ctl))
	contains(t, "compare card, kq", text, `unknown letter 'q'`)

	// A chain that cannot run says why, by its column.
	p.ctl.SetCompareOwn(false)
	spec.Sampler.Temperature = 0
	p = page(t, spec, -1)
	p.ctl.SetCompareOpen(true)
	p.ctl.SetCompareChain(1, "hf")
	_, text = render(compareCard(p.s(), p.d(), p.ctl))
	contains(t, "compare card, hf greedy", text, "greedy decoding is do_sample=False")
}

// TestPlaygroundOpensCompare opens links that set the compare card: the
// card shows their chains, and the page's own links carry them on.
func TestPlaygroundOpensCompare(t *testing.T) {
	const worked = "model=logits&logits=2,1,0&vocab=a,b,c&temperature=2&min_p=0.3"
	hfOwn := play.CompareChoice{Open: true, Chains: [2]string{"chain", "hf"}, Own: true}
	_, frag, _ := strings.Cut(playgroundAt(worked+"&compare=chain,hf&compare_own=1", "").ctl.ShareLink(), "#")
	for _, tc := range []struct {
		query, fragment string
		want            []string
		card            play.CompareChoice // what the page's link carries
	}{
		{worked + "&compare=chain,hf&compare_own=1", "",
			[]string{"nexttoken's chain", "Hugging Face generate()", "TopKLogitsWarper: 3 kept"}, hfOwn},
		{"", frag, []string{"nexttoken's chain", "Hugging Face generate()"}, hfOwn},
		{worked + "&view=compare", "", []string{"nexttoken's chain", "llama.cpp (edskypmxt)"},
			play.CompareChoice{Open: true, Chains: [2]string{"chain", "llama.cpp"}}},
		{"embed=1&view=compare&" + worked + "&compare=runc,kt", "", []string{"llama2.c run.c", "llama.cpp, kt", "temp-ext: 3 kept"},
			play.CompareChoice{Open: true, Chains: [2]string{"runc", "kt"}}},
	} {
		p := playgroundAt(tc.query, tc.fragment)
		html, text := drawPage(p)
		contains(t, tc.query, text, tc.want...)
		lacks(t, tc.query, text, "could not be opened")
		if tc.card.Own {
			lacks(t, tc.query, html, `id="compare-same" checked`)
		}
		if got := linkedCard(t, p); got != tc.card {
			t.Errorf("%s: the page's link %s opens the card %+v, want %+v", tc.query, p.ctl.ShareLink(), got, tc.card)
		}
	}

	// Closed, the card leaves the link; the compare view's embed carries
	// the reader's choices, other views' do not.
	p := playgroundAt(worked+"&compare=chain,hf&compare_own=1", "")
	p.ctl.SetCompareOpen(false)
	if got := linkedCard(t, p); got != (play.CompareChoice{}) {
		t.Errorf("closed card: the link %s opens the card %+v", p.ctl.ShareLink(), got)
	}
	s := p.ctl.Snapshot()
	if got := play.EmbedLink("/", s.Session.Spec, "compare", "", s.Page.EmbedCompare()); !strings.Contains(got, "compare=chain%2Chf&compare_own=1") {
		t.Errorf("compare embed %s lacks the chains", got)
	}
	if got := play.EmbedLink("/", s.Session.Spec, "softmax", "", s.Page.EmbedCompare()); strings.Contains(got, "compare") {
		t.Errorf("softmax embed %s has the chains", got)
	}
	// Letters no link can hold leave the chains out, not the link.
	p.ctl.SetCompareOpen(true)
	p.ctl.SetCompareChain(1, "kq")
	if got := linkedCard(t, p); got != (play.CompareChoice{Open: true, Chains: play.DefaultChains, Own: true}) {
		t.Errorf("with chain kq: the link %s opens the card %+v", p.ctl.ShareLink(), got)
	}
}

// linkedCard is the compare card that p's share link opens, which must be
// a share link.
func linkedCard(t *testing.T, p *Playground) play.CompareChoice {
	t.Helper()
	_, f, ok := strings.Cut(p.ctl.ShareLink(), "#")
	if !ok {
		t.Fatalf("the link %s has no state", p.ctl.ShareLink())
	}
	again := playgroundAt("", f)
	s := again.ctl.Snapshot()
	if s.Notice != "" {
		t.Errorf("the link %s opens with %q", p.ctl.ShareLink(), s.Notice)
	}
	return s.Page.Compare
}

func TestStageEditing(t *testing.T) {
	for _, tc := range []struct {
		chain string
		ok    bool
		seq   string
	}{
		{"llama.cpp", true, "edskypmxt"},
		{"kt", true, "kt"},
		{"ttk", true, "ttk"},
		{"kq", false, ""},
		{"hf", false, ""},
		{"chain", false, ""},
		{"mirostat2", false, ""},
		{"", false, ""},
	} {
		seq, ok := editableSequence(tc.chain)
		if ok != tc.ok || seq != tc.seq {
			t.Errorf("editableSequence(%q) = %q, %v; want %q, %v", tc.chain, seq, ok, tc.seq, tc.ok)
		}
	}
	for _, tc := range []struct {
		seq      string
		from, to int
		want     string
	}{
		{"kmt", 2, 0, "tkm"},
		{"kmt", 0, 2, "mtk"},
		{"kmt", 1, 2, "ktm"},
		{"kmt", 1, 1, "kmt"},
		{"kmt", 3, 0, "kmt"},
		{"kmt", 0, -1, "kmt"},
	} {
		if got := moveStage(tc.seq, tc.from, tc.to); got != tc.want {
			t.Errorf("moveStage(%q, %d, %d) = %q, want %q", tc.seq, tc.from, tc.to, got, tc.want)
		}
	}
	// A stage switched on goes where llama.cpp's default order has it.
	for _, tc := range []struct {
		seq  string
		s    byte
		want string
	}{
		{"kt", 'm', "kmt"},
		{"kt", 'e', "ekt"},
		{"kt", 'x', "kxt"},
		{"km", 't', "kmt"},
		{"tk", 'p', "tkp"}, // after k, which comes before p; t is no guide
		{"t", 'e', "et"},
	} {
		if got := stageOn(tc.seq, tc.s); got != tc.want {
			t.Errorf("stageOn(%q, %c) = %q, want %q", tc.seq, tc.s, got, tc.want)
		}
	}
}

func TestLoadingBanner(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Loading
		want []string
		not  []string
	}{
		{"under way", Loading{Label: "TinyStories 260K", Got: 512 << 10, Total: 1 << 20, Seconds: 0.5},
			[]string{"Loading TinyStories 260K: 512.0 KiB of 1.0 MiB, 1.0 MiB/s, 0.5 s left", "Cancel"}, []string{"Try again"}},
		{"starting", Loading{Label: "TinyStories 260K", Total: 1 << 20},
			[]string{"Loading TinyStories 260K: 0 bytes of 1.0 MiB", "Cancel"}, []string{"/s", "left"}},
		{"failed", Loading{Label: "TinyStories 260K", Err: "web/models/tok512.bin: the server answered 404"},
			[]string{"Could not load TinyStories 260K: web/models/tok512.bin: the server answered 404.", "Try again"}, []string{"Cancel"}},
	} {
		_, text := render(&tc.l)
		contains(t, tc.name, text, tc.want...)
		lacks(t, tc.name, text, tc.not...)
	}
}

// TestAppWorker: the service worker keeps the reader's models across
// versions, fetches pages from the network and serves them offline
// whatever their query.
func TestAppWorker(t *testing.T) {
	contains(t, "app worker", appWorker(), `event.waitUntil((async () => {`, `!key.startsWith("nexttoken-")`, `if (request.mode === "navigate") {
    try {
      return await fetch(request);`, `caches.match(request, {ignoreSearch: true})`)
	if !strings.HasPrefix(modelCache, "nexttoken-") {
		t.Errorf("the model cache %q would be deleted by a new version", modelCache)
	}
}

func TestTimeline(t *testing.T) {
	// 20 steps of stories260K, step 3 on display: four series of one path
	// each, a point per step, and the readout of step 3's own numbers.
	p := page(t, stories(20, sampler.Settings{Temperature: 1, Seed: 3}), 2)
	tl := &Timeline{Vocab: 512}
	byID, html, text := paintOf(tl, p.s())
	st := p.s().Session.Trace.Steps[2]
	for _, series := range []string{"prob", "entropy", "surprise", "rank"} {
		d := byID["timeline-"+series+" d"]
		if n := strings.Count(d, "L") + 1; n != 20 || !strings.HasPrefix(d, "M0.5 ") {
			t.Errorf("%s: %d points (%q), want 20 from x = 0.5", series, n, d)
		}
	}
	if got := byID["timeline-lines viewBox"]; got != "0 0 20 232.0" {
		t.Errorf("the lines' viewBox is %q, want 20 steps wide", got)
	}
	contains(t, "timeline", text, "step 3 “"+p.s().Model().Label(st.Token)+"”", "p = "+sig(st.Prob), "ln p = "+sig(st.LogProb),
		"surprise "+sig(st.Surprise())+" nats", "entropy "+sig(st.Entropy)+" nats", "rank "+itoa(st.Rank)+" of 512")
	contains(t, "timeline", html, `class="timeline-mark selected"`)
	frame, _ := render(tl)
	contains(t, "timeline's frame", frame, `id="timeline-hit"`, "rank (1 at the top, 512 at the bottom")
	if strings.Count(frame, "<path") != 4 || strings.Count(frame, "<") > 40 {
		t.Errorf("the frame has %d paths and %d elements:\n%s", strings.Count(frame, "<path"), strings.Count(frame, "<"), frame)
	}

	// A step added, then taken back: the paths grown and shrunk are the
	// paths drawn afresh.
	for _, act := range []func(){p.ctl.Step, p.ctl.Step, p.ctl.Undo, func() { p.ctl.Force(5, 100) }} {
		act()
		grown, _, _ := paintOf(tl, p.s())
		fresh, _, _ := paintOf(&Timeline{Vocab: 512}, p.s())
		for _, series := range []string{"prob", "entropy", "surprise", "rank"} {
			if k := "timeline-" + series + " d"; grown[k] != fresh[k] {
				t.Errorf("%d steps: %s is %q, drawn afresh %q", p.s().Steps(), series, grown[k], fresh[k])
			}
		}
	}

	// No steps: no lines, a hint.
	p = page(t, stories(0, sampler.DefaultSettings()), -1)
	byID, _, text = paintOf(&Timeline{Vocab: 512}, p.s())
	if d := byID["timeline-prob d"]; d != "" {
		t.Errorf("no steps, yet a path %q", d)
	}
	contains(t, "empty timeline", text, "Take a step")
}

func TestLensCard(t *testing.T) {
	// Closed, the card asks for no lens and shows none.
	p := page(t, stories(12, sampler.Settings{Temperature: 1, Seed: 3}), 4)
	html, _ := render(lensCard(p.s(), p.d(), p.ctl))
	lacks(t, "closed lens card", html, "lens-grid")
	if p.d().Lens != nil {
		t.Error("the detail carries a lens while the card is closed")
	}

	// Open: a row per layer, play.LensTop tokens each, and the step on display's
	// lens, which follows the selection.
	p.ctl.SetLensOpen(true)
	for _, sel := range []int{4, 9, 12} {
		p.ctl.Select(sel)
		d := p.d()
		html, text := render(lensCard(p.s(), d, p.ctl))
		if n, want := strings.Count(html, "<tr"), 1+p.s().Model().Layers; n != want {
			t.Errorf("step %d: %d rows, want %d (a head and a row per layer)", sel, n, want)
		}
		if n, want := strings.Count(html, `class="lens`), p.s().Model().Layers*play.LensTop; n != want {
			t.Errorf("step %d: %d cells, want %d", sel, n, want)
		}
		contains(t, "lens card", html, `data-step="`+itoa(sel)+`"`)
		last := d.Lens[len(d.Lens)-1].Top[0]
		contains(t, "lens card", text, p.s().Model().Label(last.Token)+" "+sig(last.P))
	}

	// Hand-typed logits have no layers: no card.
	p = page(t, workedSpec, -1)
	html, _ = render(lensCard(p.s(), p.d(), p.ctl))
	lacks(t, "worked example", html, "lens")
}

func TestRecomputeCard(t *testing.T) {
	// Off: the counts' chart only, nothing recomputed.
	p := page(t, stories(20, sampler.Settings{Temperature: 1, Seed: 3}), 6)
	card := recomputeCard(p.s(), p.d(), p.ctl, nil).(*RecomputeCard)
	html, _ := render(card)
	contains(t, "recompute card, off", html, `id="recompute-toggle"`, `<path id="cost-recomputed" class="recomputed"/>`, `<path id="cost-cached" class="cached"/>`)
	lacks(t, "recompute card, off", html, "recompute-diff", "recompute-times")
	// The series, a point per position: 5 prompt tokens and 20 steps, the
	// recomputed one the parabola of the engine's counts.
	byID, _, _ := paintOf(card, p.s())
	d := byID["cost-recomputed d"]
	_, last := p.s().Model().MultiplyAdds(24)
	if n := strings.Count(d, "L") + 1; n != 25 || !strings.HasSuffix(d, "L24.0 -"+itoa(last)+".0") {
		t.Errorf("the recomputed series is %d points ending %q, want 25 ending at −%d", n, d[max(0, len(d)-20):], last)
	}
	if got := byID["cost-lines viewBox"]; got != "0 -"+itoa(last)+" 24 "+itoa(last) {
		t.Errorf("the series' viewBox is %q", got)
	}

	// On: the step on display recomputed, bit-identical, with the engine's
	// counts, and a measured time per step recomputed.
	p.ctl.SetRecompute(true)
	m := p.s().Model()
	spaced := func(n int) string { return strings.ReplaceAll(count(n), "\u2009", " ") } // as render's text has it
	for _, sel := range []int{6, 20} {
		p.ctl.Select(sel)
		d := p.d()
		cached, recomputed := m.MultiplyAdds(d.Step.Pos)
		html, text := render(recomputeCard(p.s(), d, p.ctl, nil))
		contains(t, "recompute card", text, "Step "+itoa(sel+1)+" recomputed over all "+itoa(d.Step.Pos+1)+" positions", "bit-identical",
			spaced(cached), spaced(recomputed))
		contains(t, "recompute card", html, `id="recompute-times"`)
	}
	if n := len(p.s().Times); n != 2 {
		t.Errorf("%d positions measured, want 2", n)
	}

	// While Run steps, the card waits rather than stall it.
	running := p.s()
	running.Running = true
	_, text := render(recomputeCard(running, running.Detail, p.ctl, nil))
	contains(t, "recompute card while running", text, "waits until Run stops")
	lacks(t, "recompute card while running", text, "bit-identical")

	// Hand-typed logits: no card.
	p = page(t, workedSpec, -1)
	html, _ = render(recomputeCard(p.s(), p.d(), p.ctl, nil))
	lacks(t, "worked example", html, "recompute")
}

// TestNarrowFolds checks the marks a narrow card folds its tables by
// (app.css): the columns a table can do without are of class sec, the
// token and p are not, and the card has the switches that bring back
// what folds, with the number of rows it lists.
func TestNarrowFolds(t *testing.T) {
	scaled := workedSpec
	scaled.Sampler.Temperature = 2
	worked, toy := page(t, scaled, -1), page(t, toySpec(0), -1)
	story := page(t, stories(2, sampler.Settings{Temperature: 1, Seed: 3}), -1)
	story.ctl.SetLensOpen(true)
	folded := func(v painter, s play.Snapshot) string {
		byID, html, _ := paintOf(v, s)
		return app.HTMLString(v.(app.UI)) + html + " count " + byID["softmax-count"] + byID["logits-count"] + byID["bars-count"]
	}
	for _, tc := range []struct {
		name, html string
		wants      []string
	}{
		{"softmax at T = 2", folded(&SoftmaxCard{}, worked.s()), []string{
			`<th class="sec">ℓ/T</th>`, `<th class="sec">ℓ/T − max</th>`, `<th class="sec">e^(ℓ/T − max)</th>`, `<th>ℓ</th>`, `<th class="p">p</th>`,
			"show all columns", "show all", `id="softmax-count"`, "count 6"}},
		{"softmax of stories260K", folded(&SoftmaxCard{}, story.s()), []string{"count 24"}},
		{"logits", folded(&LogitsCard{Model: toy.s().Model()}, toy.s()), []string{
			`<th class="slider sec">`, `<td class="slider sec">`, `<th class="p">p</th>`, `<td id="logit-p-0" class="p">`, "show all columns", "count 6"}},
		{"bars of stories260K", folded(&BarsCard{}, story.s()), []string{`id="bars-count"`, "count 24"}},
		{"LM head", folded(&HiddenCard{Model: toy.s().Model()}, toy.s()), []string{
			`<th colspan="4" class="sec">row of W</th>`, `<td class="sec">`, `<th>W·h</th>`, `<td class="result">`, "show all columns"}},
		{"lens", app.HTMLString(lensCard(story.s(), story.d(), story.ctl)), []string{
			`<th>#1</th>`, `<th>#2</th>`, `<th class="sec">#3</th>`, `class="lens sec"`, "show all columns"}},
	} {
		contains(t, tc.name, tc.html, tc.wants...)
		if regexp.MustCompile(`class="[^"]*\bsec\b[^"]*\bp\b|class="[^"]*\bp\b[^"]*\bsec\b|class="result sec"`).MatchString(tc.html) {
			t.Errorf("%s: a p column folds:\n%s", tc.name, tc.html)
		}
	}
}

// TestCompareHistogram draws 1,000 tokens from each chain: each chain's
// histogram has a bar per listed token as long as its share of the
// card's own draws, and a mark at its probability in the chain's final
// distribution, on one scale for both; the tokens beyond the list share
// a row.
func TestCompareHistogram(t *testing.T) {
	vocab := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	logits := make([]float64, len(vocab))
	for i := range logits {
		logits[i] = -0.4 * float64(i)
	}
	spec := session.Spec{Model: session.LogitsModel, Vocab: vocab, Logits: logits,
		Sampler: sampler.Settings{Mode: sampler.Chain, Temperature: 1, TopK: 10, Seed: 42}}
	p := page(t, spec, -1)
	p.ctl.SetCompareOpen(true)
	html, _ := render(compareCard(p.s(), p.d(), p.ctl))
	lacks(t, "the card before the draws", html, "histogram")
	p.ctl.ToggleCompareDraws()
	card := compareCard(p.s(), p.d(), p.ctl).(*CompareCard)
	html, _ = render(card)
	ids, runs := card.Cmp.Tokens, card.Cmp.Chains
	if len(ids) != play.CompareRows {
		t.Fatalf("%d tokens listed, want %d", len(ids), play.CompareRows)
	}
	scale := 0.0
	for _, run := range runs {
		for i := range ids {
			scale = max(scale, run.Final[i], float64(run.Drawn[i])/play.CompareDraws)
		}
	}
	width := func(x float64) string { return strconv.FormatFloat(100*x/scale, 'f', 2, 64) + "%" }
	// A row's label, bar length, mark and count; attributes come in any
	// order.
	label := regexp.MustCompile(`class="hist-label">([^<]*)<`)
	bar := regexp.MustCompile(`<span [^>]*class="hist-bar"[^>]*>`)
	mark := regexp.MustCompile(`<span [^>]*class="hist-p"[^>]*>`)
	count := regexp.MustCompile(`class="hist-n">(\d+)<`)
	style := regexp.MustCompile(`style="(?:width|left):([^;"]*)`)
	parse := func(li string) []string {
		var out []string
		for _, m := range [][]string{label.FindStringSubmatch(li), style.FindStringSubmatch(bar.FindString(li)),
			style.FindStringSubmatch(mark.FindString(li)), count.FindStringSubmatch(li)} {
			if m == nil {
				return nil
			}
			out = append(out, m[1])
		}
		return out
	}
	for k, chain := range []string{"A", "B"} {
		start := strings.Index(html, `data-chain="`+chain+`"`)
		if start < 0 {
			t.Fatalf("no histogram of chain %s:\n%s", chain, html)
		}
		fig := html[start:]
		fig = fig[:strings.Index(fig, "</figure>")]
		var rows [][]string
		for _, li := range strings.Split(fig, "<li ")[1:] {
			row := parse(li)
			if row == nil {
				t.Fatalf("chain %s: a row without its label, bar, mark or count:\n%s", chain, li)
			}
			rows = append(rows, append([]string{li}, row...))
		}
		if len(rows) != len(ids)+1 {
			t.Fatalf("chain %s: %d rows, want %d tokens and the rest:\n%s", chain, len(rows), len(ids), fig)
		}
		restN, restP := play.CompareDraws, 1.0
		for i, id := range ids {
			n, p := runs[k].Drawn[i], runs[k].Final[i]
			restN, restP = restN-n, restP-p
			want := []string{vocab[id], width(float64(n) / play.CompareDraws), width(p), strconv.Itoa(n)}
			if got := rows[i][1:]; !slices.Equal(got, want) {
				t.Errorf("chain %s, token %s: label, bar, mark and count %q, want %q", chain, vocab[id], got, want)
			}
		}
		if got := rows[len(ids)][1:]; got[0] != "all others" || got[3] != strconv.Itoa(restN) || got[2] != width(max(restP, 0)) {
			t.Errorf("chain %s: the rest %q, want %d draws at p %v", chain, got, restN, restP)
		}
	}
}

// TestShareDownloads: the share panel offers the trace in each format and
// says how the export goes: under way, saved, or why not.
func TestShareDownloads(t *testing.T) {
	s := &Share{Spec: workedSpec, Origin: "https://x.example", Path: "/", Link: "/#s1.abc"}
	html, _ := render(s)
	contains(t, "the downloads", html, `id="export-json"`, `id="export-csv"`, `value="json"`, `value="csv"`)
	for _, c := range []struct {
		x         play.Exporting
		text, cls string
	}{
		{play.Exporting{Name: "nexttoken-toy-2000-steps.json", Steps: 2000, On: true}, "Writing nexttoken-toy-2000-steps.json, 2,000 steps…", "hint"},
		{play.Exporting{Name: "nexttoken-toy-4-steps.csv", Steps: 4, Message: "Saved nexttoken-toy-4-steps.csv: 4 steps, 612 bytes."}, "Saved nexttoken-toy-4-steps.csv: 4 steps, 612 bytes.", "hint"},
		{play.Exporting{Message: "Could not export the trace: Not running in a browser.", Failed: true}, "Could not export the trace: Not running in a browser.", "field-error"},
	} {
		s.Export = c.x
		html, _ := render(s)
		status := regexp.MustCompile(`<p [^>]*id="export-status"[^>]*>([^<]*)<`).FindStringSubmatch(html)
		if status == nil || status[1] != c.text || !strings.Contains(status[0], `class="`+c.cls+`"`) {
			t.Errorf("%+v: the status %q, want %q in class %s", c.x, status, c.text, c.cls)
		}
	}
}

// TestPageDrawsItsTopFirst: the live page draws its top (the prompt, the
// strip, the buttons) first and its later parts one at a time after it,
// and says it is ready only once all of them are drawn. A page drawn
// natively (prerendered) is drawn whole.
func TestPageDrawsItsTopFirst(t *testing.T) {
	for _, tc := range []struct {
		drawn       int
		ready       bool
		has, hasNot []string
	}{
		{0, false, []string{`id="step"`, `id="tokens"`}, []string{`id="picture"`, `id="softmax"`, `id="kv"`, `class="footer"`}},
		{1, false, []string{`id="step"`, `id="picture"`}, []string{`id="share"`, `id="kv"`}},
		{2, false, []string{`id="picture"`}, []string{`id="share"`, `id="hidden"`}},
		{3, false, []string{`id="picture"`, `id="share"`}, []string{`id="timeline"`, `id="kv"`}},
		{4, false, []string{`id="share"`, `id="timeline"`}, []string{`id="hidden"`, `id="kv"`}},
		{5, false, []string{`id="timeline"`, `id="hidden"`}, []string{`id="logits"`, `id="kv"`}},
		{6, false, []string{`id="hidden"`, `id="logits"`}, []string{`id="softmax"`, `id="kv"`}},
		{7, false, []string{`id="logits"`, `id="softmax"`, `id="sampler"`}, []string{`id="recompute"`, `id="kv"`}},
		{8, false, []string{`id="sampler"`, `id="recompute"`}, []string{`id="kv"`, `class="footer"`}},
		{9, false, []string{`id="recompute"`, `id="kv"`}, []string{`class="footer"`}},
		{10, true, []string{`id="step"`, `id="picture"`, `id="softmax"`, `id="kv"`, `class="footer"`}, nil},
	} {
		p := playgroundAt("model=toy&steps=2", "")
		p.later = tc.drawn
		html, _ := render(p)
		if ready := !strings.Contains(html, `data-ready="false"`); ready != tc.ready {
			t.Errorf("%d parts drawn: the page is ready %v, want %v", tc.drawn, ready, tc.ready)
		}
		what := strconv.Itoa(tc.drawn) + " parts drawn"
		contains(t, what, html, tc.has...)
		lacks(t, what, html, tc.hasNot...)
	}
	if html, _ := render(playgroundAt("model=toy&steps=2", "")); strings.Contains(html, `data-ready="false"`) || !strings.Contains(html, `id="kv"`) {
		t.Errorf("a page drawn natively is not drawn whole")
	}
}
