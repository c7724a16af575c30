package play

import (
	"math"
	"slices"

	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/softmax"
)

// Detail is the step on display as the views show it: the numbers they
// print, of the rows they list, and never a vector as long as the
// vocabulary, so that it is small whatever the model.
//
// Its attention and cache rows are the engine's memory, valid until its
// next Show or change of the session, as a session.Detail's are.
type Detail struct {
	Index     int          // the step's number; the session's steps for the next step
	Step      session.Step // the compact record
	Unsampled error        // why the sampler could not choose (session.Detail.Unsampled), or nil

	Vocab  int       // the vocabulary's size
	Hidden []float32 // the input's final hidden state h; nil for hand-typed logits

	// Listed are the tokens a table lists: every token of a vocabulary of
	// at most ListedRows in id order, else the ListedRows most probable,
	// most probable first (by logit when the sampler had no
	// probabilities).
	Listed []int
	// Matches are the tokens whose text holds Query (Request.Query), at
	// most ListedRows, in id order.
	Query   string
	Matches []int
	// Rows hold the numbers of every token listed or matched, of the
	// step's token and the sampler's, of those the request asked for
	// (Request.Rows), and of the model's own most probable (ComputedTop),
	// in id order; of every token, for hand-typed logits.
	Rows []Row

	// Choice is the sampler's choice, compact: its stages' summaries and
	// the draw's numbers, without their vectors (Rows and Segments hold
	// what is shown of them); nil when unsampled.
	Choice *sampler.Choice
	// Softmax is the sampler's softmax, its sums; nil when unsampled.
	Softmax *SoftmaxSums
	// Segments are the draw's first candidates along its cumulative sum;
	// nil when the choice drew nothing.
	Segments *Segments
	// Filtered says that a filter removed tokens: Row.Final holds the
	// probabilities once the survivors are renormalised.
	Filtered bool

	// Attention[h] holds the weights with which the input's query in head
	// h of layer KV.Layer attended to positions 0 … Step.Pos.
	Attention [][]float32
	// KV is the cache as the step read it: positions 0 … Step.Pos; its
	// rows of one layer.
	KV Cache
	// Lens is the logit lens of the step's pass (session.Detail.Lens).
	Lens []session.LensLayer

	// Compare is the compare card's run of its chains on the step's
	// logits, when the request asked for it (Request.Compare) and the
	// sampler had logits to choose from.
	Compare *Comparison

	// LogitRange spans the step's finite logits, at least −10 to 10, in
	// whole numbers: the scale of every slider of the step.
	LogitRange [2]float64
	// ComputedTop are the ComputedTopRows tokens the model itself ranks
	// first, by its own logits before edits; nil for hand-typed logits.
	ComputedTop []int
}

// Cache is the KV cache as a step read it, and the rows of one of its
// layers: the one the KV card shows.
type Cache struct {
	Len      int // positions
	Layers   int //
	Heads    int // key/value heads a layer
	Bytes    int // the memory of the positions
	RowBytes int // how much it grows a position
	Capacity int // the positions it can hold
	Layer    int // the layer Key and Value read

	rows   kvRows // the engine's cache, or the rows a Remote holds
	inputs []int  // the token each position read: its rows depend on these alone (and the model)
}

// kvRows reads the rows of a cache: transformer.CacheView's methods.
type kvRows interface {
	Key(l, pos, h int) []float32
	Value(l, pos, h int) []float32
}

// Key is the key vector of kv head h at the layer and position pos < Len.
func (c Cache) Key(pos, h int) []float32 { return c.rows.Key(c.Layer, pos, h) }

// Value is the value vector of kv head h at the layer and position pos < Len.
func (c Cache) Value(pos, h int) []float32 { return c.rows.Value(c.Layer, pos, h) }

// ListedRows is how many tokens a table lists before it lists the most
// probable ones and offers a search.
const ListedRows = 24

// ComputedTopRows is how many of the model's own most probable tokens a
// detail keeps (Detail.ComputedTop).
const ComputedTopRows = 8

// Row is one token's numbers at a step.
type Row struct {
	Token    int
	Logit    float64 // the logit the sampler read: the model's, with the step's edits
	Computed float64 // the model's own, W·h, before edits; 0 for hand-typed logits

	// The softmax's steps (softmax.Trace), zero when unsampled: the logit
	// it read (after a repetition penalty), ℓ/T, ℓ/T − max, e^(ℓ/T − max)
	// and p.
	In, Scaled, Shifted, Exp, P float64

	// Final is p once the survivors of the filters are renormalised
	// (Detail.Filtered); RemovedBy is 0, or 1 + the place in the step's
	// stages of the filter that removed the token.
	Final     float64
	RemovedBy int8
}

// DrawSegments is how many of the draw's candidates a detail keeps, in
// the order its cumulative sum runs (Segments).
const DrawSegments = 40

// Segments are the head of a draw's cumulative sum (sampler.Draw's Order
// and CDF): its first DrawSegments candidates, and the sum around the
// candidate drawn, wherever it is.
type Segments struct {
	Order []int
	CDF   []float64
	// Candidates is the number of candidates the sum runs over.
	Candidates int
	// Chosen is the candidate drawn, Order[Draw.Index] of the whole
	// order; Before and Through are the sum before it and through it.
	Chosen          int
	Before, Through float64
}

// SoftmaxSums are a softmax's numbers that are not per token.
type SoftmaxSums struct {
	Temperature float64
	Max, Sum    float64
	Argmax      int
}

// Row is token id's row, and whether the detail holds it.
func (d *Detail) Row(id int) (Row, bool) {
	i, ok := slices.BinarySearchFunc(d.Rows, id, func(r Row, id int) int { return r.Token - id })
	if !ok {
		return Row{Token: id}, false
	}
	return d.Rows[i], true
}

// holds reports whether d has the rows of tokens ids.
func (d *Detail) holds(ids []int) bool {
	for _, id := range ids {
		if _, ok := d.Row(id); !ok && id >= 0 && id < d.Vocab {
			return false
		}
	}
	return true
}

// trim is the page's detail of d, with the rows of the tokens r asks for
// as well as its own, or with every token's when all is set, and the
// comparison r asks for, of the chains run with the settings used at the
// step.
func trim(d *session.Detail, r Request, all bool, used sampler.Settings) *Detail {
	if d == nil {
		return nil
	}
	want := r.Rows
	t := &Detail{Index: d.Index, Step: d.Step, Unsampled: d.Unsampled, Vocab: len(d.Logits), Hidden: slices.Clone(d.Hidden), Lens: slices.Clone(d.Lens)}
	if kv := d.KV; kv.Len() > 0 {
		l := min(max(r.Layer, 0), kv.Layers()-1)
		t.KV = Cache{Len: kv.Len(), Layers: kv.Layers(), Heads: kv.Heads(), Bytes: kv.Bytes(), RowBytes: kv.RowBytes(), Capacity: kv.Capacity(), Layer: l,
			rows: kv, inputs: d.Context[:min(kv.Len(), len(d.Context))]}
		if l < len(d.Attention) {
			t.Attention = d.Attention[l]
		}
	}
	lo, hi := -10.0, 10.0
	for _, l := range d.Logits {
		if l < lo && !math.IsInf(l, -1) {
			lo = l
		} else if l > hi && !math.IsInf(l, 1) {
			hi = l
		}
	}
	t.LogitRange = [2]float64{math.Floor(lo), math.Ceil(hi)}
	var sm *softmax.Trace
	var final []float64
	probs := d.Logits
	if d.Choice != nil {
		sm = d.Choice.Softmax
		probs = sm.Probs
		t.Softmax = &SoftmaxSums{Temperature: sm.Temperature, Max: sm.Max, Sum: sm.Sum}
		for _, st := range d.Choice.Stages {
			if Filters(st) {
				final = st.Probs
			}
		}
		t.Filtered = final != nil
		if r.Compare.Open {
			t.Compare = compareChains(r.Compare, d.Logits, d.Context, used, d.Choice.Draw)
		}
		compact := d.Choice.Compact()
		t.Choice = &compact
		if dr := d.Choice.Draw; dr != nil && len(dr.Order) > 0 {
			n := min(len(dr.Order), DrawSegments)
			seg := &Segments{Order: slices.Clone(dr.Order[:n]), CDF: slices.Clone(dr.CDF[:n]), Candidates: len(dr.Order),
				Chosen: dr.Order[dr.Index], Through: dr.CDF[dr.Index]}
			if dr.Index > 0 {
				seg.Before = dr.CDF[dr.Index-1]
			}
			t.Segments = seg
		}
	}
	if len(probs) > ListedRows {
		t.Listed = softmax.Top(probs, ListedRows, nil)
	} else {
		t.Listed = make([]int, len(probs))
		for i := range t.Listed {
			t.Listed[i] = i
		}
	}
	if t.Softmax != nil {
		if len(probs) > ListedRows {
			t.Softmax.Argmax = t.Listed[0] // the most probable, listed first
		} else {
			t.Softmax.Argmax = softmax.Top(probs, 1, nil)[0]
		}
	}
	if d.Computed != nil {
		t.ComputedTop = softmax.Top(d.Computed, ComputedTopRows, nil)
	}

	if all {
		want = make([]int, t.Vocab)
		for i := range want {
			want[i] = i
		}
	}
	ids := slices.Concat(t.Listed, want, t.ComputedTop, []int{d.Step.Token})
	if d.Choice != nil {
		ids = append(ids, d.Choice.Token)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		if id < 0 || id >= t.Vocab {
			continue
		}
		r := Row{Token: id, Logit: d.Logits[id]}
		if d.Computed != nil {
			r.Computed = d.Computed[id]
		}
		if sm != nil {
			r.In, r.Scaled, r.Shifted, r.Exp, r.P = sm.Logits[id], sm.Scaled[id], sm.Shifted[id], sm.Exp[id], sm.Probs[id]
			if final != nil {
				r.Final = final[id]
			}
			for i, st := range d.Choice.Stages {
				if _, found := slices.BinarySearch(st.Removed, id); found && Filters(st) {
					r.RemovedBy = int8(i + 1)
					break
				}
			}
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// Filters reports whether a sampler stage removes tokens: every one but
// the repetition penalty and the temperature.
func Filters(st sampler.Stage) bool {
	return st.Name != sampler.StageRepetitionPenalty && st.Name != sampler.StageTemperature
}
