package tracefile

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
)

// JSON writes a session as one JSON object, a step at a time as the steps
// are made:
//
//	{"model": …, "prompt": [ids], "sampler": {…}, "steps": [step, …], "text": …, "stopped": …}
//
// A step carries its top candidates and what each sampler stage did; with
// its Detail, also every vector as long as the vocabulary; with an Extra,
// what the model was asked before the step.
type JSON struct {
	W io.Writer
}

// Extra is what a step's JSON carries beside the trace when the model was
// asked for it before the step: the logits recomputed without the cache
// ("recompute_max_abs_diff", "multiply_adds") and the logit lens ("lens").
type Extra struct {
	Recomputed *session.Recomputed
	Lens       []session.LensLayer
}

// WriteJSON writes the steps taken of a session as JSON writes them
// without details or extras: what `nexttoken trace --json` prints for the
// same session.
func WriteJSON(w io.Writer, spec session.Spec, t *session.Trace) error {
	return writeAll(JSONFile, w, spec, t)
}

type (
	jsonStep struct {
		Pos     int             `json:"pos"`
		Input   int             `json:"input"`
		Token   int             `json:"token"`
		Piece   string          `json:"piece"`
		Prob    jsonFloat       `json:"prob"`
		Forced  bool            `json:"forced,omitempty"`
		Edited  []int           `json:"edited,omitempty"`
		Top     []jsonCandidate `json:"top"`
		Greedy  bool            `json:"greedy,omitempty"`
		Stages  []jsonStage     `json:"stages"`
		Draw    *jsonDraw       `json:"draw,omitempty"`
		KVLen   int             `json:"kv_len"`
		KVBytes int             `json:"kv_bytes"`
		jsonExtra
		*jsonVectors
	}
	jsonExtra struct {
		RecomputeMaxAbsDiff *jsonFloat        `json:"recompute_max_abs_diff,omitempty"`
		MultiplyAdds        *jsonMultiplyAdds `json:"multiply_adds,omitempty"`
		Lens                []jsonLensLayer   `json:"lens,omitempty"`
	}
	jsonMultiplyAdds struct {
		Cached     int `json:"cached"`
		Recomputed int `json:"recomputed"`
	}
	jsonLensLayer struct {
		Layer int             `json:"layer"`
		Top   []jsonLensToken `json:"top"`
	}
	jsonLensToken struct {
		Token int       `json:"token"`
		P     jsonFloat `json:"p"`
	}
	jsonCandidate struct {
		Token int       `json:"token"`
		Prob  jsonFloat `json:"prob"`
		Logit jsonFloat `json:"logit"`
	}
	jsonStage struct {
		Name        sampler.StageName `json:"name"`
		Survivors   int               `json:"survivors,omitempty"`
		Affected    int               `json:"affected"`
		RemovedMass jsonFloat         `json:"removed_mass"`
		Removed     []int             `json:"removed,omitempty"`
		Changed     []int             `json:"changed,omitempty"`
		Logits      floats            `json:"logits,omitempty"`
		Probs       floats            `json:"probs,omitempty"`
	}
	jsonDraw struct {
		U      jsonFloat `json:"u"`
		Target jsonFloat `json:"target"`
		Index  int       `json:"index"`
		Lo     jsonFloat `json:"lo"`
		Hi     jsonFloat `json:"hi"`
		Total  jsonFloat `json:"total"`
		Order  []int     `json:"order,omitempty"`
		CDF    floats    `json:"cdf,omitempty"`
		Note   string    `json:"note,omitempty"`
	}
	// jsonVectors are a step's vectors, from its Detail.
	jsonVectors struct {
		Logits   floats    `json:"logits"`
		Computed floats    `json:"computed,omitempty"`
		Hidden   floats    `json:"hidden,omitempty"`
		Max      jsonFloat `json:"max"`
		Sum      jsonFloat `json:"sum"`
		Probs    floats    `json:"probs"`
	}
)

// Start writes what comes before the steps.
func (j JSON) Start(spec session.Spec, t *session.Trace) error {
	prompt := []int{}
	for _, p := range t.Prompt {
		prompt = append(prompt, p.ID)
	}
	_, err := fmt.Fprintf(j.W, "{\n \"model\": %s,\n \"prompt\": %s,\n \"sampler\": %s,\n \"steps\": [", marshal(spec.Model), marshal(prompt), marshal(spec.Sampler))
	return err
}

// Step writes step i of t; d is its Detail or nil, x what the model was
// asked before it.
func (j JSON) Step(t *session.Trace, i int, d *session.Detail, x Extra) error {
	st := t.Steps[i]
	c := st.Choice
	js := jsonStep{
		Pos: st.Pos, Input: st.Input, Token: st.Token, Piece: st.Piece, Prob: jsonFloat(st.Prob),
		Forced: st.Forced, Edited: st.Edited, Greedy: c.Greedy, KVLen: st.KVLen, KVBytes: st.KVBytes,
		Top: []jsonCandidate{}, Stages: []jsonStage{}, jsonExtra: x.json(),
	}
	for _, t := range st.Top {
		js.Top = append(js.Top, jsonCandidate{t.Token, jsonFloat(t.Prob), jsonFloat(t.Logit)})
	}
	stages, draw := c.Stages, c.Draw
	if d != nil {
		stages, draw = d.Choice.Stages, d.Choice.Draw
		sm := d.Choice.Softmax
		js.jsonVectors = &jsonVectors{Logits: d.Logits, Computed: d.Computed, Hidden: softmax.Widen(nil, d.Hidden),
			Max: jsonFloat(sm.Max), Sum: jsonFloat(sm.Sum), Probs: sm.Probs}
	}
	for _, sg := range stages {
		js.Stages = append(js.Stages, jsonStage{Name: sg.Name, Survivors: sg.Survivors, Affected: sg.Affected,
			RemovedMass: jsonFloat(sg.RemovedMass), Removed: sg.Removed, Changed: sg.Changed, Logits: sg.Logits, Probs: sg.Probs})
	}
	if draw != nil {
		js.Draw = &jsonDraw{U: jsonFloat(draw.U), Target: jsonFloat(draw.Target), Index: draw.Index,
			Lo: jsonFloat(draw.Lo), Hi: jsonFloat(draw.Hi), Total: jsonFloat(draw.Total), Order: draw.Order, CDF: draw.CDF, Note: c.Note}
	}
	sep := ","
	if i == 0 {
		sep = ""
	}
	_, err := fmt.Fprintf(j.W, "%s\n  %s", sep, marshal(js))
	return err
}

func (x Extra) json() jsonExtra {
	var e jsonExtra
	for _, l := range x.Lens {
		jl := jsonLensLayer{Layer: l.Layer, Top: []jsonLensToken{}}
		for _, t := range l.Top {
			jl.Top = append(jl.Top, jsonLensToken{t.Token, jsonFloat(t.P)})
		}
		e.Lens = append(e.Lens, jl)
	}
	if r := x.Recomputed; r != nil {
		e.RecomputeMaxAbsDiff = (*jsonFloat)(&r.MaxAbsDiff)
		e.MultiplyAdds = &jsonMultiplyAdds{r.CachedMultiplyAdds, r.RecomputedMultiplyAdds}
	}
	return e
}

// End writes what comes after the steps.
func (j JSON) End(t *session.Trace) error {
	_, err := fmt.Fprintf(j.W, "\n ],\n \"text\": %s,\n \"stopped\": %s\n}\n", marshal(t.Text), marshal(t.Stop.String()))
	return err
}

// marshal is json.Marshal of a value that always encodes.
func marshal(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the types above reach here, and they encode
	}
	return data
}

type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	case math.IsInf(x, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(x)
}

type floats []float64

func (v floats) MarshalJSON() ([]byte, error) {
	out := make([]jsonFloat, len(v))
	for i, x := range v {
		out[i] = jsonFloat(x)
	}
	return json.Marshal(out)
}
