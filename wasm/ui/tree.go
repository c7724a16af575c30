package ui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"nexttoken/wasm/play"
)

// TreePath is one path of the generation tree as the tree card draws it.
type TreePath struct {
	ID, From, At int        // as session.Path: path From's steps before At are this one's
	Tokens       []TreeStep // its own steps, from At on
	LogProb      float64    // Σ ln p of every token of the path
	Text         string     // the prompt and every token of the path
}

// TreeStep is one step of a path.
type TreeStep struct {
	Label  string // as every view names the token
	Prob   float64
	Forced bool
}

// TreeCard draws the generation tree: every path the session has taken,
// as nested lists, each branch under the path it left, with its own
// tokens tinted by their probability and the path's total log-probability.
// A branch switches to it or goes; two paths picked show their texts side
// by side. The last switch says what it did to the KV cache.
type TreeCard struct {
	app.Compo

	Paths  []TreePath // path 0 is the session's
	Refill string     // what the last switch did to the cache, or ""
	Do     treeActions

	picked []int // the paths picked to compare, at most two
}

// treeActions are what the tree card asks of the controller.
type treeActions interface {
	Switch(path int)
	Delete(path int)
}

func (c *TreeCard) Render() app.UI {
	if len(c.picked) > 0 && c.picked[len(c.picked)-1] >= len(c.Paths) {
		c.picked = nil // the tree changed under the pick
	}
	body := []app.UI{app.Ul().Class("tree").Body(c.branch(0))}
	if len(c.Paths) == 1 && len(c.Paths[0].Tokens) == 0 {
		body = []app.UI{app.P().ID("tree-empty").Class("hint").Text("No steps yet: take one, and the tree grows with every path the session takes.")}
	}
	if c.Refill != "" {
		body = append([]app.UI{app.P().ID("tree-refill").Class("hint").Text(c.Refill)}, body...)
	}
	if len(c.picked) == 2 {
		body = append(body, c.compare(c.Paths[c.picked[0]], c.Paths[c.picked[1]]))
	}
	hint := "Force another token (click a bar) or edit a logit at an earlier step: the session branches there and keeps the path it leaves. " +
		"Each token is tinted by its probability; ln p is the path's total log-probability. " +
		"Switch goes back to the last step two paths share, truncating the KV cache there, and runs the branch's steps again."
	return app.Section().ID("tree").Class("card").OnClick(c.onClick).Body(
		append([]app.UI{app.H3().Text("Generation tree"), app.P().Class("hint").Text(hint)}, body...)...,
	)
}

// branch is path id with the branches that leave it, by step.
func (c *TreeCard) branch(id int) app.UI {
	p := c.Paths[id]
	toks := make([]app.UI, len(p.Tokens))
	for j, t := range p.Tokens {
		class := "tok gen"
		if t.Forced {
			class += " forced"
		}
		toks[j] = app.Span().Class(class).Style("--p", strconv.FormatFloat(t.Prob, 'f', 3, 64)).
			Title("step " + itoa(p.At+j+1) + ": p = " + sig(t.Prob)).Text(t.Label)
	}
	where := pathName(p)
	if id > 0 {
		where += ", from step " + itoa(p.At+1)
	}
	row := []app.UI{
		app.Span().Class("branch-name").Text(where),
		app.Span().Class("branch-tokens").Body(toks...),
		app.Span().Class("branch-logp").Title("the path's total log-probability, Σ ln p").Text("ln p = " + logProb(p.LogProb)),
	}
	if id > 0 {
		row = append(row, app.Button().Class("branch-switch").Title("make this path the session's").Text("Switch"))
	}
	pick := app.Button().Class("branch-pick").Title("compare this path's text with another's").Text("Compare")
	for _, k := range c.picked {
		if k == id {
			pick = pick.Class("picked").Attr("aria-pressed", "true")
		}
	}
	row = append(row, pick)
	if id > 0 {
		row = append(row, app.Button().Class("branch-delete").Title("delete this path").Text("Delete"))
	}
	var children []app.UI
	for k := range c.Paths {
		if c.Paths[k].From == id && k != id {
			children = append(children, c.branch(k))
		}
	}
	body := []app.UI{app.Div().Class("branch-row").Body(row...)}
	if len(children) > 0 {
		body = append(body, app.Ul().Body(children...))
	}
	return app.Li().Class("branch").DataSet("path", id).Body(body...)
}

// compare shows two paths' texts side by side, what they share plain and
// where they differ marked.
func (c *TreeCard) compare(a, b TreePath) app.UI {
	n := 0
	for n < len(a.Text) && n < len(b.Text) && a.Text[n] == b.Text[n] {
		n++
	}
	for n > 0 && (n < len(a.Text) && !utf8.RuneStart(a.Text[n]) || n < len(b.Text) && !utf8.RuneStart(b.Text[n])) {
		n-- // not inside a character either text has there
	}
	side := func(p TreePath) app.UI {
		return app.Div().Class("compare-side").DataSet("path", p.ID).Body(
			app.H4().Text(capitalize(pathName(p))+" · ln p = "+logProb(p.LogProb)),
			app.P().Class("compare-text").Body(
				app.Span().Class("same").Text(p.Text[:n]),
				app.Mark().Class("diff").Text(p.Text[n:]),
			),
		)
	}
	return app.Div().ID("tree-compare").Class("tree-compare").Body(side(a), side(b))
}

// onClick handles the buttons of every branch (see listEvent).
func (c *TreeCard) onClick(ctx app.Context, e app.Event) {
	if id, _, ok := listEvent(e, "branch-switch", "path"); ok {
		c.picked = nil
		c.Do.Switch(id)
	} else if id, _, ok := listEvent(e, "branch-delete", "path"); ok {
		c.picked = nil
		c.Do.Delete(id)
	} else if id, _, ok := listEvent(e, "branch-pick", "path"); ok {
		c.pick(id)
	}
}

// pick adds path id to the two compared, or takes it out.
func (c *TreeCard) pick(id int) {
	for k, p := range c.picked {
		if p == id {
			c.picked = append(c.picked[:k:k], c.picked[k+1:]...)
			return
		}
	}
	c.picked = append(c.picked, id)
	if len(c.picked) > 2 {
		c.picked = c.picked[1:]
	}
}

// pathName is how the page names a path: the session's, or path N.
func pathName(p TreePath) string {
	if p.ID == 0 {
		return "the session's path"
	}
	return "path " + itoa(p.ID)
}

// logProb writes a log-probability, −∞ for a path through a token of
// probability 0.
func logProb(x float64) string { return fixed(x, 2) }

// treeCard is the tree card's input: the session's paths. The full page
// shows the card once there is a branch (embedded, always): a path alone
// is the token strip again, which a long Run would redraw at every step.
func treeCard(s play.Snapshot, do treeActions, always bool) app.UI {
	tree := s.Session.Tree
	if len(tree) == 1 && !always {
		return app.Text("")
	}
	paths := make([]TreePath, len(tree))
	for id, path := range tree {
		tp := TreePath{ID: id, From: path.From, At: path.At, LogProb: path.Prob, Tokens: make([]TreeStep, len(path.Own))}
		if id < len(s.Session.Texts) {
			tp.Text = s.Session.Texts[id]
		}
		for j, st := range path.Own {
			tp.Tokens[j] = TreeStep{Label: s.Model().Label(st.Token), Prob: st.Prob, Forced: st.Forced}
		}
		paths[id] = tp
	}
	refill := ""
	if strings.HasPrefix(s.Note, "Switched") {
		refill = s.Note
	}
	return &TreeCard{Paths: paths, Refill: refill, Do: do}
}
