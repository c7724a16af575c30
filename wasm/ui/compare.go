package ui

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/wasm/play"
)

// chainLabels name the chains the compare card offers.
var chainLabels = map[string]string{
	compare.Ours:      "nexttoken's chain",
	compare.RunC:      "llama2.c run.c",
	compare.LlamaCpp:  "llama.cpp (edskypmxt)",
	compare.Mirostat:  "llama.cpp, mirostat",
	compare.Mirostat2: "llama.cpp, mirostat v2",
	compare.HF:        "Hugging Face generate()",
}

// customChain is the picker's value for a llama.cpp chain of the reader's
// own letters; its first letters are llama.cpp's default sequence.
const customChain = "edskypmxt"

// CompareCard runs two runtimes' sampler chains on the logits of the step
// on display: what each stage keeps, the two final distributions and how
// far apart they are, and where the step's u lands in each. It computes
// nothing while closed.
type CompareCard struct {
	app.Compo

	Open   bool
	Chains [2]string        // by package compare's names
	Same   bool             // llama.cpp and Hugging Face follow the session's settings
	Cmp    *play.Comparison // the chains run on the step; nil while closed or when the sampler had nothing to choose from
	Model  *play.Model
	Do     compareActions

	drag stageAt // the stage being dragged, while it is
}

// compareActions are what the compare card asks of the controller.
type compareActions interface {
	SetCompareOpen(open bool)
	SetCompareChain(k int, name string)
	SetCompareOwn(own bool)
	ToggleCompareDraws()
}

// stageAt is one stage of one chain's letter sequence.
type stageAt struct{ chain, index int }

func (c *CompareCard) Render() app.UI {
	body := []app.UI{app.Summary().Body(app.H3().Text("Compare chains: nexttoken, run.c, llama.cpp, Hugging Face"))}
	if c.Open {
		body = append(body,
			app.P().Class("hint").Text("The same logits through two runtimes' sampler chains, stage by stage. "+
				"The runtimes differ on purpose: llama.cpp filters before it applies the temperature, "+
				"Hugging Face's top-k keeps every token tied with the k-th, and top-p 0 keeps one token there but is off here."),
			c.pickers(),
			app.Div().Class("compare").Body(c.column(0), c.column(1)),
			c.table(),
			c.summary(),
		)
	}
	details := app.Details().ID("compare").Class("card compare-card").OnToggle(c.onToggle)
	if c.Open {
		details = details.Open(true) // go-app would write open="false", which opens it
	}
	return details.Body(body...)
}

func (c *CompareCard) pickers() app.UI {
	pick := func(k int, id string) app.UI {
		name := c.Chains[k]
		_, preset := chainLabels[name]
		options := make([]app.UI, 0, len(compare.Names)+1)
		for _, n := range compare.Names {
			options = append(options, option(n, chainLabels[n], n == name))
		}
		options = append(options, option(customChain, "llama.cpp, stages of your choice", !preset))
		field := []app.UI{app.Span().Text([]string{"chain A", "chain B"}[k]),
			app.Select().ID(id).Body(options...).OnChange(c.onChain(k))}
		if !preset {
			// llama.cpp's --sampling-seq letters: reorder them, or leave one
			// out to switch its stage off.
			field = append(field, app.Input().ID(id+"-seq").Type("text").Value(name).
				Attr("aria-label", "llama.cpp's stages, one letter each").
				Title("e penalties, d DRY, s top-n-sigma, k top-k, y typical, p top-p, m min-p, x XTC, t temperature").
				OnChange(c.onSequence(k)))
		}
		return app.Label().Class("field").Body(field...)
	}
	return app.Div().Class("row").Body(
		pick(0, "compare-a"), pick(1, "compare-b"),
		app.Label().Class("check").Body(
			app.Input().ID("compare-same").Type("checkbox").Checked(c.Same).OnChange(c.onSame),
			app.Text(" llama.cpp and Hugging Face use this session's temperature, top-k, top-p and min-p (unchecked: their own defaults)"),
		),
	)
}

// column is chain k's stages and where u lands.
func (c *CompareCard) column(k int) app.UI {
	label, ok := chainLabels[c.Chains[k]]
	if !ok {
		label = "llama.cpp, " + c.Chains[k]
	}
	head := app.H4().Text(label)
	if c.Cmp == nil {
		return app.Div().Class("chain").Body(head)
	}
	out := c.Cmp.Chains[k]
	if out.Err != nil {
		return app.Div().Class("chain").Body(head, app.P().Class("field-error").Attr("role", "alert").Text(play.Words(out.Err)))
	}
	stages := make([]app.UI, 0, len(out.Stages))
	for _, st := range out.Stages {
		line := stageLabel(st.Name) + ": " + itoa(st.Kept) + " kept"
		if st.Removed > 0 {
			line += ", removed " + itoa(st.Removed) + " (" + pct(st.RemovedMass) + " of the probability)"
		}
		stages = append(stages, app.Li().Body(app.Text(line), c.shifts(st.Top)))
	}
	if len(stages) == 0 {
		stages = append(stages, app.Li().Text("no filter: every token can be drawn"))
	}
	body := []app.UI{head, c.stageEditor(k), app.Ol().Class("stages").Body(stages...),
		app.P().Class("landed").Body(app.Text("u lands on "), app.Strong().Text(c.Model.Label(out.Landed)),
			app.Text(" (p = "+sig(out.P)+")"))}
	if out.Note != "" {
		body = append(body, app.P().Class("hint").Text(out.Note+"."))
	}
	return app.Div().Class("chain").DataSet("chain", c.Chains[k]).Body(body...)
}

// shifts is how a stage reshaped the distribution: its most probable
// tokens after it, each with its probability before → after.
func (c *CompareCard) shifts(top []compare.Shift) app.UI {
	if len(top) == 0 {
		return app.Text("")
	}
	text := ""
	for i, s := range top {
		if i > 0 {
			text += ", "
		}
		text += c.Model.Label(s.ID) + " " + sig(s.Before) + " → " + sig(s.After)
	}
	return app.Span().Class("shift").Text(" · " + text)
}

// table lists the most probable tokens of either chain with both
// probabilities, and how often each was drawn when asked.
func (c *CompareCard) table() app.UI {
	if c.Cmp == nil || len(c.Cmp.Tokens) == 0 {
		return app.Text("")
	}
	a, b := c.Cmp.Chains[0], c.Cmp.Chains[1]
	drawn := a.Drawn != nil && b.Drawn != nil
	head := []app.UI{app.Th().Text("token"), app.Th().Class("p").Text("p in A")}
	if drawn {
		head = append(head, app.Th().Class("sec").Text("drawn in A"))
	}
	head = append(head, app.Th().Class("p").Text("p in B"))
	if drawn {
		head = append(head, app.Th().Class("sec").Text("drawn in B"))
	}
	rows := []app.UI{app.Tr().Body(head...)}
	for i, id := range c.Cmp.Tokens {
		cells := []app.UI{app.Th().Text(c.Model.Label(id)), app.Td().Class("p").Text(sig(a.Final[i]))}
		if drawn {
			cells = append(cells, app.Td().Class("sec").Text(itoa(a.Drawn[i])))
		}
		cells = append(cells, app.Td().Class("p").Text(sig(b.Final[i])))
		if drawn {
			cells = append(cells, app.Td().Class("sec").Text(itoa(b.Drawn[i])))
		}
		row := app.Tr().DataSet("token", id).Body(cells...)
		if (a.Final[i] == 0) != (b.Final[i] == 0) {
			row = row.Class("differs") // one chain can draw it, the other cannot
		}
		rows = append(rows, row)
	}
	table := app.Div().Class("scroll").Body(app.Table().Class("num compare-table").Body(rows...))
	if !drawn {
		return table
	}
	return app.Div().Body(
		app.Div().ID("compare-histograms").Class("compare").Body(c.histogram(0), c.histogram(1)),
		app.Details().Class("counts").Body(app.Summary().Text("The counts and probabilities in numbers"),
			folds(allColumns()), table),
	)
}

// histogram is chain k's draws against its exact probabilities: for each
// token the card lists, and for the rest together, a bar as long as the
// share of the draws that took it, and a mark where its probability in
// the chain's final distribution (after every stage) is. Both chains'
// histograms share one scale, the largest share or probability.
func (c *CompareCard) histogram(k int) app.UI {
	type bar struct {
		label string
		n     int
		p     float64
	}
	ids, runs := c.Cmp.Tokens, c.Cmp.Chains
	bars := make([]bar, 0, len(ids)+1)
	rest := [2]bar{{n: play.CompareDraws, p: 1}, {n: play.CompareDraws, p: 1}}
	for i, id := range ids {
		bars = append(bars, bar{c.Model.Label(id), runs[k].Drawn[i], runs[k].Final[i]})
		for j := range rest {
			rest[j].n -= runs[j].Drawn[i]
			rest[j].p -= runs[j].Final[i]
		}
	}
	// The rest's probability is what the listed tokens leave, up to
	// rounding, which must not draw a bar.
	const rounding = 1e-9
	for j := range rest {
		if rest[j].p < rounding {
			rest[j].p = 0
		}
	}
	if rest[0].n > 0 || rest[1].n > 0 || rest[0].p > 0 || rest[1].p > 0 {
		bars = append(bars, bar{"all others", rest[k].n, rest[k].p})
	}
	scale := 0.0
	for j, run := range runs {
		for i := range ids {
			scale = math.Max(scale, math.Max(float64(run.Drawn[i])/play.CompareDraws, run.Final[i]))
		}
		scale = math.Max(scale, math.Max(float64(rest[j].n)/play.CompareDraws, rest[j].p))
	}
	width := func(x float64) string { return strconv.FormatFloat(100*x/scale, 'f', 2, 64) + "%" }
	rows := make([]app.UI, len(bars))
	for i, b := range bars {
		share := float64(b.n) / play.CompareDraws
		rows[i] = app.Li().Class("hist-row").Title(b.label+": drawn "+itoa(b.n)+" times of "+sampler.Readable(play.CompareDraws)+", p = "+sig(b.p)).Body(
			app.Span().Class("hist-label").Text(b.label),
			app.Span().Class("hist-track").Body(
				app.Span().Class("hist-bar").Style("width", width(share)),
				app.Span().Class("hist-p").Style("left", width(b.p)).Attr("aria-hidden", "true"),
			),
			app.Span().Class("hist-n").Text(itoa(b.n)),
		)
	}
	return app.Figure().Class("histogram").DataSet("chain", []string{"A", "B"}[k]).Body(
		app.FigCaption().Text([]string{"Chain A", "Chain B"}[k]+": "+sampler.Readable(play.CompareDraws)+" draws (bars) and the exact probabilities (marks)"),
		app.Ol().Class("hist").Body(rows...),
	)
}

func (c *CompareCard) summary() app.UI {
	if c.Cmp == nil || len(c.Cmp.Tokens) == 0 {
		return app.Text("")
	}
	label := "Sample " + sampler.Readable(play.CompareDraws) + " times from each"
	if c.Cmp.Chains[0].Drawn != nil {
		label = "Hide the draws"
	}
	return app.Div().Body(
		app.P().ID("compare-summary").Body(
			app.Text("Total variation distance "), app.Strong().ID("compare-tv").Text(sig(c.Cmp.TV)),
			app.Text(": the largest difference in probability the two chains give any set of tokens. Both draw u = "+sig(c.Cmp.U)+
				", each walking its own distribution in its own order."),
		),
		app.Button().ID("compare-draws").Text(label).OnClick(c.onDraws),
	)
}

func (c *CompareCard) onToggle(ctx app.Context, e app.Event) {
	if open := ctx.JSSrc().Get("open").Bool(); open != c.Open {
		c.Do.SetCompareOpen(open)
	}
}

func (c *CompareCard) onChain(k int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { c.Do.SetCompareChain(k, ctx.JSSrc().Get("value").String()) }
}

func (c *CompareCard) onSequence(k int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { c.Do.SetCompareChain(k, ctx.JSSrc().Get("value").String()) }
}

func (c *CompareCard) onDraws(ctx app.Context, e app.Event) { c.Do.ToggleCompareDraws() }

func (c *CompareCard) onSame(ctx app.Context, e app.Event) {
	c.Do.SetCompareOwn(!ctx.JSSrc().Get("checked").Bool())
}

// compareCard shows the engine's run of the two chains on step d's
// logits when the card is open.
func compareCard(s play.Snapshot, d *play.Detail, do compareActions) app.UI {
	pg := s.Page
	return &CompareCard{Open: pg.CompareOpen(), Chains: pg.CompareChains(), Same: !pg.Compare.Own, Model: s.Model(), Do: do, Cmp: d.Compare}
}

// stageEditor lets the reader reorder and switch off the stages of a
// llama.cpp chain: drag a stage onto another, or use its arrows, and
// switch it off (×) or on (+). The stages that are on come first, in the chain's order;
// those that are off follow in llama.cpp's. Any edit turns the chain into
// its letters, which setCompareChain runs at once.
func (c *CompareCard) stageEditor(k int) app.UI {
	seq, ok := editableSequence(c.Chains[k])
	if !ok {
		return app.Text("")
	}
	var idle []int
	if c.Cmp != nil {
		idle = c.Cmp.Chains[k].Idle
	}
	chips := make([]app.UI, 0, len(canonicalStages))
	for i, s := range []byte(seq) {
		chip := app.Li().Class("stage-chip").DataSet("stage", string(s))
		if slices.Contains(idle, i) {
			// In the chain, but its values switch it off: not drawn as a
			// stage at work.
			chip = chip.Class("stage-chip idle").Title(stageName(s) + " does nothing at these settings")
		}
		chip = chip.
			Attr("draggable", "true").
			OnDragStart(c.onDragStart(k, i)).OnDragOver(onDragOver).OnDrop(c.onDrop(k, i)).
			Body(
				app.Span().Class("grip").Attr("aria-hidden", "true").Text("⠿ "),
				app.Span().Text(stageName(s)),
				app.Button().Class("move").Text("‹").Title("earlier").Disabled(i == 0).OnClick(c.onMove(k, i, i-1)),
				app.Button().Class("move").Text("›").Title("later").Disabled(i == len(seq)-1).OnClick(c.onMove(k, i, i+1)),
				// Buttons, not checkboxes: a box keeps the state the reader
				// clicked when go-app reuses it for the stage that moves
				// into its place.
				app.Button().Class("off").Text("×").Title("switch "+stageName(s)+" off").
					Disabled(len(seq) == 1).OnClick(c.onStageOff(k, i)),
			)
		chips = append(chips, chip)
	}
	for _, s := range canonicalStages {
		if !strings.ContainsRune(seq, rune(s)) {
			chips = append(chips, app.Li().Class("stage-chip off").DataSet("stage", string(s)).Body(
				app.Button().Class("on").Text("+ "+stageName(byte(s))).Title("switch "+stageName(byte(s))+" on").
					OnClick(c.onStageOn(k, byte(s)))))
		}
	}
	return app.Ol().Class("stage-editor").ID([]string{"compare-a", "compare-b"}[k]+"-stages").
		Attr("aria-label", "the chain's stages: drag to reorder, × to switch one off, + to switch one on").Body(chips...)
}

// stageName is a stage's name as the page spells stages: llama.cpp's
// --samplers name (top_k) with a hyphen (top-k), as the settings are
// labelled.
func stageName(s byte) string {
	switch name := llamacpp.Sampler(s).String(); llamacpp.Sampler(s) {
	case llamacpp.DRY, llamacpp.XTC:
		return strings.ToUpper(name)
	case llamacpp.Typical:
		return "typical-p"
	default:
		return strings.ReplaceAll(name, "_", "-")
	}
}

func (c *CompareCard) onDragStart(k, i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		c.drag = stageAt{k, i}
		// Firefox starts a drag only with data set.
		if dt := e.Get("dataTransfer"); dt.Truthy() {
			dt.Set("effectAllowed", "move")
			dt.Call("setData", "text/plain", strconv.Itoa(i))
		}
	}
}

// onDragOver lets a stage be dropped on another.
func onDragOver(ctx app.Context, e app.Event) { e.PreventDefault() }

func (c *CompareCard) onDrop(k, i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		e.PreventDefault()
		if c.drag.chain == k {
			c.move(k, c.drag.index, i)
		}
	}
}

func (c *CompareCard) onMove(k, from, to int) app.EventHandler {
	return func(ctx app.Context, e app.Event) { c.move(k, from, to) }
}

func (c *CompareCard) move(k, from, to int) {
	if seq, ok := editableSequence(c.Chains[k]); ok {
		c.Do.SetCompareChain(k, moveStage(seq, from, to))
	}
}

func (c *CompareCard) onStageOff(k, i int) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if seq, ok := editableSequence(c.Chains[k]); ok && i < len(seq) && len(seq) > 1 {
			c.Do.SetCompareChain(k, seq[:i]+seq[i+1:])
		}
	}
}

func (c *CompareCard) onStageOn(k int, s byte) app.EventHandler {
	return func(ctx app.Context, e app.Event) {
		if seq, ok := editableSequence(c.Chains[k]); ok {
			c.Do.SetCompareChain(k, stageOn(seq, s))
		}
	}
}

// canonicalStages are llama.cpp's default stages in its default order.
var canonicalStages = llamacpp.Defaults().Samplers

// editableSequence is chain's llama.cpp letters, when it has an order the
// reader can change: llama.cpp's preset or letters of its stages.
// Mirostat replaces the chain, and the other runtimes' orders are fixed.
func editableSequence(chain string) (string, bool) {
	if chain == compare.LlamaCpp {
		return customChain, true
	}
	if _, preset := chainLabels[chain]; preset || chain == "" {
		return "", false
	}
	if _, err := llamacpp.ParseSequence(chain); err != nil {
		return "", false
	}
	return chain, true
}

// moveStage moves seq's letter at from to index to, shifting those
// between; indices out of range leave seq as it is.
func moveStage(seq string, from, to int) string {
	if from < 0 || to < 0 || from >= len(seq) || to >= len(seq) || from == to {
		return seq
	}
	b := []byte(seq)
	s := b[from]
	b = slices.Delete(b, from, from+1)
	return string(slices.Insert(b, to, s))
}

// stageOn puts stage s back into seq where llama.cpp's default order has
// it: after the last stage on that comes before it there, or first.
func stageOn(seq string, s byte) string {
	rank := func(x byte) int { return slices.Index(canonicalStages, llamacpp.Sampler(x)) }
	for i := len(seq) - 1; i >= 0; i-- {
		if rank(seq[i]) < rank(s) {
			return seq[:i+1] + string(s) + seq[i+1:]
		}
	}
	return string(s) + seq
}
