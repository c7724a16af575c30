package main

import (
	"encoding/json"
	"io"
	"math"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
)

// The JSON form of a trace. Numbers are the engine's own, unrounded; the
// non-finite values JSON cannot hold (a masked token's −Inf) are written as
// the strings "-Inf", "+Inf" and "NaN".
type (
	jsonTrace struct {
		Model   string           `json:"model"`
		Prompt  []int            `json:"prompt"`
		Sampler sampler.Settings `json:"sampler"`
		Text    string           `json:"text"`
		Stopped string           `json:"stopped,omitempty"`
		Steps   []jsonStep       `json:"steps"`
	}
	jsonStep struct {
		Pos     int         `json:"pos"`
		Input   int         `json:"input"`
		Hidden  floats      `json:"hidden,omitempty"`
		Logits  floats      `json:"logits"`
		Edited  []int       `json:"edited,omitempty"`
		Max     jsonFloat   `json:"max"`
		Sum     jsonFloat   `json:"sum"`
		Probs   floats      `json:"probs"`
		Stages  []jsonStage `json:"stages"`
		Draw    *jsonDraw   `json:"draw,omitempty"`
		Token   int         `json:"token"`
		Forced  bool        `json:"forced,omitempty"`
		Piece   string      `json:"piece"`
		KVLen   int         `json:"kv_len"`
		KVBytes int         `json:"kv_bytes"`
	}
	jsonStage struct {
		Name        string    `json:"name"`
		Removed     []int     `json:"removed,omitempty"`
		RemovedMass jsonFloat `json:"removed_mass"`
		Changed     []int     `json:"changed,omitempty"`
		Logits      floats    `json:"logits,omitempty"`
		Probs       floats    `json:"probs,omitempty"`
	}
	jsonDraw struct {
		U      jsonFloat `json:"u"`
		Target jsonFloat `json:"target"`
		Order  []int     `json:"order"`
		CDF    floats    `json:"cdf"`
		Index  int       `json:"index"`
	}
)

func writeJSON(w io.Writer, s *session.Session) error {
	t := s.Trace()
	spec := s.Spec()
	out := jsonTrace{Model: spec.Model, Sampler: spec.Sampler, Text: t.Text, Stopped: t.Stopped,
		Prompt: []int{}, Steps: []jsonStep{}}
	for _, p := range t.Prompt {
		out.Prompt = append(out.Prompt, p.ID)
	}
	for _, st := range t.Steps {
		c := st.Choice
		js := jsonStep{
			Pos: st.Pos, Input: st.Input, Hidden: st.Hidden, Logits: st.Logits, Edited: st.Edited,
			Max: jsonFloat(c.Softmax.Max), Sum: jsonFloat(c.Softmax.Sum), Probs: c.Softmax.Probs,
			Token: st.Token, Forced: st.Forced, Piece: st.Piece, KVLen: st.KVLen, KVBytes: st.KVBytes,
			Stages: []jsonStage{},
		}
		for _, sg := range c.Stages {
			js.Stages = append(js.Stages, jsonStage{Name: sg.Name, Removed: sg.Removed,
				RemovedMass: jsonFloat(sg.RemovedMass), Changed: sg.Changed, Logits: sg.Logits, Probs: sg.Probs})
		}
		if d := c.Draw; d != nil {
			js.Draw = &jsonDraw{U: jsonFloat(d.U), Target: jsonFloat(d.Target), Order: d.Order, CDF: d.CDF, Index: d.Index}
		}
		out.Steps = append(out.Steps, js)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
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
