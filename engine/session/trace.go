package session

import "nexttoken/engine/sampler"

// Trace is everything a session has computed.
type Trace struct {
	Prompt []Token // the prompt as the tokenizer split it (empty for LogitsModel)
	Steps  []Step
	Text   string // the whole context decoded: prompt and chosen tokens

	// Stopped says why no further step is possible, or is "".
	Stopped string
}

// Token is one token of the context.
type Token struct {
	ID    int
	Piece string // the text it adds in context (raw bytes)
	Text  string // its vocabulary entry, as stored
}

// Step is one decoding step.
type Step struct {
	Pos    int       // position of the input token whose logits the step read
	Input  int       // that token, or -1 in a LogitsModel session
	Hidden []float64 // the input's final hidden state h: Logits = W·h (nil for LogitsModel)
	Logits []float64 // the model's logits with the step's edits applied
	Edited []int     // tokens whose logit was set by hand
	Choice *sampler.Choice
	Token  int    // the token appended to the context
	Forced bool   // Token was chosen by hand, not by Choice
	Piece  string // the text Token adds

	// The KV cache once the chosen token was fed to the model (unchanged
	// when the session stopped at this step, or in a step from Next).
	KVLen   int
	KVBytes int

	rngWas  sampler.RNG // generator state before the step, for undo
	context int         // context length before the step
}
