package session

import (
	"fmt"

	"nexttoken/engine/sampler"
	"nexttoken/engine/transformer"
)

// Trace is everything a session has computed, kept compact: a step holds
// its decision and a few numbers, never a vector as long as the vocabulary,
// so hundreds of steps of a 32,000-token model cost kilobytes. Detail
// derives the rest of a step — its logits, softmax, every sampler stage,
// hidden state, attention and cache — when it is shown.
type Trace struct {
	Prompt []Token // the prompt as the tokenizer split it (empty for LogitsModel)
	Steps  []Step
	Text   string // the whole context decoded: prompt and chosen tokens

	// Stop says why no further step is possible; its Kind is Running
	// while one is.
	Stop Stop
}

// StopKind is why a session stopped.
type StopKind int

// The reasons a session stops.
const (
	Running     StopKind = iota // it has not: another step is possible
	EndOfText                   // a step took the tokenizer's EOS (not in run.c mode, where run.c goes on after it)
	NewText                     // a step took BOS, which starts a new text
	ContextFull                 // the last step sampled from the context's last position
	OneStep                     // hand-typed logits give one step
	EndOfTurn                   // a chat's step took its template's end of turn (EOS of Model.Chat): the assistant's reply is over
)

// Stop is why a session can take no further step.
type Stop struct {
	Kind    StopKind
	Token   int    // EndOfText, NewText, EndOfTurn: the token taken
	Text    string // its vocabulary entry without surrounding white space: "</s>", not "\n</s>\n"
	Forced  bool   // EndOfText, NewText, EndOfTurn: the token was forced by hand
	Context int    // ContextFull: the context's length in tokens
}

// String says why the session stopped in words for people, or "" while
// it runs: "the model chose the end-of-text token </s>".
func (s Stop) String() string {
	switch s.Kind {
	case EndOfText:
		if s.Forced {
			return "the end-of-text token " + s.Text + " was forced by hand"
		}
		return "the model chose the end-of-text token " + s.Text
	case NewText:
		if s.Forced {
			return s.Text + ", which starts a new text, was forced by hand"
		}
		return "the model chose " + s.Text + ", which starts a new text"
	case EndOfTurn:
		if s.Forced {
			return "the end of the assistant's turn, " + s.Text + ", was forced by hand"
		}
		return "the model ended the assistant's turn with " + s.Text
	case ContextFull:
		return fmt.Sprintf("the context of %d tokens is full", s.Context)
	case OneStep:
		return "hand-typed logits give one step"
	}
	return ""
}

// Token is one token of the context.
type Token struct {
	ID    int
	Piece string // the text it adds in context (raw bytes)
	Text  string // its vocabulary entry, as stored
}

// Step is one decoding step.
type Step struct {
	Pos        int            // position of the input token whose logits the step read
	Input      int            // that token, or -1 in a LogitsModel session
	Edited     []int          // tokens whose logit was set by hand, in increasing order
	EndsMasked []int          // when its settings' IgnoreEOS is on, the tokens that end a text, whose logit the step set to −Inf whatever the edits; shared, do not change
	Choice     sampler.Choice // the sampler's choice, compact: stage summaries and the draw
	Token      int            // the token appended to the context
	Forced     bool           // Token was chosen by hand, not by Choice
	Prob       float64        // Token's probability in the step's softmax (Choice.Prob unless forced)

	// How the step's softmax looked to the token chosen, for the timeline
	// (package softmax and softmax.Rank say how each is computed).
	LogProb float64 // ln Prob (−Inf for a forced token of probability 0)
	Entropy float64 // of the step's softmax, in nats (ln 2 nats is a bit)
	Rank    int     // Token's place in the softmax, 1 for the most probable

	Piece string      // the text Token adds
	Top   []Candidate // the most probable tokens of the step's softmax (KeepTop)

	// The KV cache once the chosen token was fed to the model (unchanged
	// when the session stopped at this step, or in a step from Next).
	KVLen   int
	KVBytes int

	genWas  generators // generator state the steps before left, for undo and Detail (genFor re-seeds it at a change of seed)
	context int        // context length before the step
}

// Surprise is the information the chosen token carried, −ln Prob, in nats:
// 0 for a certain token, large for an unlikely one. Averaged over the steps
// it is the text's cross-entropy under the model (the log of perplexity).
func (s Step) Surprise() float64 { return -s.LogProb }

// Candidate is one of a step's most probable tokens.
type Candidate struct {
	Token int
	Prob  float64 // in the step's softmax, as Step.Prob
	Logit float64 // the logit the sampler read, edits applied
	// Removed says which stage of the step's choice removed the token,
	// as the sampler recorded it when the step was taken: 0 when none did
	// (it could be drawn, or the choice was greedy), else 1 + the stage's
	// place in Choice.Stages.
	Removed int8
}

// Detail is one step in full, derived from the compact trace and the model
// when it is shown. It is valid until the next call of Session.Detail or
// any change of the session: its vectors and lists, KV included, are the
// session's memory or views of the model's state, which the next Detail
// or change reuses. Read them; do not change them.
type Detail struct {
	Index int  // the step's number; len(Trace().Steps) for the next step
	Step  Step // the compact record (for the next step, what Step would do now)

	Logits   []float64       // the logits the sampler read: the model's, with the step's edits and Step.EndsMasked at −Inf
	Context  []int           // the tokens the sampler read for its penalties: the prompt and the steps before
	Computed []float64       // the model's own logits, W·h, before edits (nil for LogitsModel)
	Hidden   []float32       // the input's final hidden state h (nil for LogitsModel)
	Choice   *sampler.Choice // the sampler's choice with every stage recorded; nil when Unsampled

	// Unsampled says why the sampler could not choose at the next step,
	// softmax.ErrAllMasked when every token is masked, or is nil. Step
	// then has no choice and Token −1, unless one is forced.
	Unsampled error

	// Attention[l][h] holds the weights with which the query of the input
	// token in head h of layer l attended to positions 0 … Pos.
	Attention [][][]float32
	// KV is the cache as the step read it: positions 0 … Pos.
	KV transformer.CacheView
	// Lens is the logit lens of the step's pass, layer by layer from the
	// first (the last is the model's own softmax at temperature 1, before
	// edits); nil unless Session.KeepLens asked for it, and for LogitsModel.
	Lens []LensLayer
}

// LensLayer is one layer of the logit lens: its most probable tokens.
type LensLayer = transformer.LensLayer
