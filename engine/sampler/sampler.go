package sampler

import (
	"errors"
	"fmt"
	"slices"

	"nexttoken/engine/softmax"
)

// StageName names a stage of a choice, as Stage.Name records it: the
// chain's and run.c's stages are the constants below; a choice of
// another runtime's chain (package compare's Stepper) records the stages
// by that runtime's own names ("top-k", "TopKLogitsWarper").
type StageName string

// The stages of the chain and of run.c's sampler.
const (
	StageRepetitionPenalty StageName = "repetition_penalty" // the chain's repetition penalty, first
	StageTemperature       StageName = "temperature"        // the logits divided by T, then the softmax
	StageTopK              StageName = "top_k"
	StageTopP              StageName = "top_p" // the chain's nucleus, and run.c's
	StageMinP              StageName = "min_p"
	StageRunCCutoff        StageName = "runc_cutoff" // run.c's pre-filter before its nucleus
)

// Stage records what one stage of the choice did. Token lists are in
// increasing id order. A recorded choice (Sample, Record) fills every
// field; a compact one (Choose) leaves Removed, Changed, Logits and Probs
// nil.
type Stage struct {
	Name        StageName // one of the constants, or another runtime's name for its stage
	Survivors   int       // tokens of nonzero probability after the stage (not for the penalty)
	Affected    int       // tokens it removed (filters) or whose logit it changed (penalty)
	RemovedMass float64   // the probability of the removed tokens before the stage

	Removed []int     // tokens this filter set to probability 0
	Changed []int     // tokens whose logit the repetition penalty changed
	Logits  []float64 // logits after the stage (repetition_penalty; temperature: ℓ/T)
	Probs   []float64 // distribution after the stage, renormalised (temperature and filters)
}

// Draw records the random choice among the surviving tokens.
type Draw struct {
	U      float64 // the uniform number drawn, in [0, 1)
	Target float64 // where U points along the cumulative sum: U × Total (U when Total is 1)
	Index  int     // the chosen position: the first i with Target < CDF[i] (llama.cpp: ≤), else the last
	Lo, Hi float64 // the cumulative sum before and after the chosen token: Lo ≤ Target < Hi
	// Total is the cumulative sum of every candidate: 1 up to rounding,
	// but run.c's top-p mass, and llama.cpp's sum of unnormalised
	// expf(ℓ − max) (1 when one candidate is left, which it draws without
	// a sum).
	Total float64

	// Recorded only: the candidates in the order the cumulative sum runs,
	// and the sum along them.
	Order []int
	CDF   []float64
}

// Choice is the chosen token and how it was chosen.
type Choice struct {
	Token  int
	Greedy bool    // chosen by argmax (temperature 0)
	Prob   float64 // Token's probability in the softmax the stages start from (at temperature 1 when greedy)
	Stages []Stage // the stages that were switched on, in order
	Draw   *Draw   // nil when greedy
	Note   string  // what the draw is where it is not its runtime's own (Hugging Face's), else ""

	// Recorded only: the softmax of the (penalised) logits at the
	// temperature used, 1 when greedy, with every intermediate value.
	Softmax *softmax.Trace
}

// Sample chooses the next token from logits, one per vocabulary token, as
// described in the package documentation, and records every stage in full
// for display: O(vocabulary) memory per stage. history holds the tokens of
// the context so far, for the repetition penalty; each must be a valid id.
// rng is advanced by exactly one Float32 when the choice is not greedy; on
// error it is left untouched. The Choice is the caller's: Sample is Record
// on a Scratch of its own.
func Sample(s Settings, logits []float64, history []int, rng *RNG) (*Choice, error) {
	return new(Scratch).Record(s, logits, history, rng)
}

// Scratch holds the working memory of Choose and Record, reused from one
// call to the next. The zero value is ready to use.
type Scratch struct {
	logits, probs []float64
	probs32       []float32
	rank          ranking
	ids           []int
	stages        [5]Stage
	choice        Choice
	draw          Draw
	rec           recording

	// ranked are the latest choice's tokens in the order its filters cut:
	// every filter kept a prefix of it (see RemovedBy); nil when no filter
	// ran.
	ranked []int
}

// recording is the memory of Record's vectors and lists.
type recording struct {
	softmax softmax.Trace
	stages  [5]stageMemory // by the stage's place in the choice
	changed []int          // the repetition penalty's
	order   []int          // the draw's
	cdf     []float64
}

// stageMemory is the memory of one recorded stage's lists.
type stageMemory struct {
	removed       []int
	logits, probs []float64
}

// Choose makes the same choice as Sample, with the same arithmetic, but
// records only summaries: the stages' counts and masses and the draw's
// interval. It allocates nothing once sc has grown to the vocabulary, and
// sorts at most as far as the stages and the draw read the ranking. The
// returned Choice and the distribution from Probs live in sc until the
// next call of Choose or Record.
func (sc *Scratch) Choose(s Settings, logits []float64, history []int, rng *RNG) (*Choice, error) {
	return sc.choose(s, logits, history, rng, false)
}

// Record makes the choice Sample makes and records it as fully, every
// vector and list in sc's memory, reused from one call to the next: once
// sc has grown to the vocabulary it allocates nothing. The returned
// Choice, everything it holds and the distribution from Probs live in sc
// until the next call of Choose or Record.
func (sc *Scratch) Record(s Settings, logits []float64, history []int, rng *RNG) (*Choice, error) {
	return sc.choose(s, logits, history, rng, true)
}

// Probs is the distribution the latest Choose or Record started from: the
// softmax of the (penalised) logits at the temperature used (1 when
// greedy).
func (sc *Scratch) Probs() []float64 { return sc.probs }

func (sc *Scratch) choose(s Settings, logits []float64, history []int, rng *RNG, record bool) (*Choice, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Runtime() {
		return nil, settingError("sampler", "mode %s is another runtime's chain, which package compare runs", s.Mode)
	}
	for i, id := range history {
		if id < 0 || id >= len(logits) {
			return nil, fmt.Errorf("sampler: history[%d] = %d is not a token of a %d-token vocabulary", i, id, len(logits))
		}
	}
	sc.probs = grow(sc.probs, len(logits))
	c := &sc.choice
	*c = Choice{Stages: sc.stages[:0]}
	sc.ranked = nil
	var err error
	if s.Mode == RunC {
		err = sc.runC(c, s, logits, rng, record)
	} else {
		err = sc.chain(c, s, logits, history, rng, record)
	}
	if err != nil {
		return nil, err
	}
	c.Prob = sc.probs[c.Token]
	return c, nil
}

func (sc *Scratch) chain(c *Choice, s Settings, logits []float64, history []int, rng *RNG, record bool) error {
	if s.penalised() {
		sc.logits = append(sc.logits[:0], logits...)
		logits = sc.logits
		c.add(sc.penalise(logits, history, s.RepetitionPenalty, record))
	}
	mem := func() *stageMemory { return sc.memory(c, record) }
	temperature := s.Temperature
	if temperature == 0 {
		temperature = 1 // the displayed distribution of a greedy choice
	}
	if err := sc.distribution(c, logits, temperature, record); err != nil {
		return err
	}
	if s.Temperature == 0 {
		c.Token, c.Greedy = Argmax(logits), true
		return nil
	}

	r := &sc.rank
	r.reset(sc.probs)
	temp := r.stage(StageTemperature, r.survivors, mem())
	if record {
		temp.Logits = c.Softmax.Scaled
	}
	c.add(temp)
	if s.TopK > 0 {
		c.add(r.stage(StageTopK, min(s.TopK, r.survivors), mem()))
	}
	if s.TopP > 0 && s.TopP < 1 {
		c.add(r.stage(StageTopP, r.nucleus(s.TopP), mem()))
	}
	if s.MinP > 0 {
		c.add(r.stage(StageMinP, r.aboveMin(s.MinP), mem()))
	}
	u, err := flip(rng)
	if err != nil {
		return err
	}
	c.Draw = sc.newDraw()
	var rec *recording
	if record {
		rec = &sc.rec
	}
	r.draw(c.Draw, float64(u), rec)
	c.Token = r.order[c.Draw.Index]
	sc.ranked = r.order
	return nil
}

// RemovedBy is the place in the latest choice's Stages of the filter that
// removed token, or -1 when none did: the token could be drawn, or the
// choice was greedy (no filter ran), or its probability was 0 from the
// start. It reads what the choice kept, compact or recorded, in time
// linear in the token's place in the ranking: each filter of the chain,
// and run.c's cutoff and nucleus, kept a prefix of the tokens ranked so
// far, and a token ranked after them all was removed by the first filter
// that removed any.
func (sc *Scratch) RemovedBy(token int) int {
	if sc.ranked == nil || token < 0 || token >= len(sc.probs) || sc.probs[token] <= 0 {
		return -1
	}
	place := slices.Index(sc.ranked, token)
	if place < 0 {
		place = len(sc.ranked)
	}
	for i, st := range sc.choice.Stages {
		if st.Name != StageRepetitionPenalty && st.Survivors <= place {
			return i
		}
	}
	return -1
}

// memory is where the next stage of c keeps its lists, or nil when c is
// not recorded.
func (sc *Scratch) memory(c *Choice, record bool) *stageMemory {
	if !record {
		return nil
	}
	return &sc.rec.stages[len(c.Stages)]
}

// newDraw is where a choice records its draw.
func (sc *Scratch) newDraw() *Draw {
	sc.draw = Draw{}
	return &sc.draw
}

// distribution computes the softmax the stages start from into sc.probs,
// and for a recorded choice its every intermediate value too.
func (sc *Scratch) distribution(c *Choice, logits []float64, temperature float64, record bool) error {
	if !record {
		_, _, err := softmax.Probs(sc.probs, logits, temperature)
		return err
	}
	if err := sc.rec.softmax.Compute(logits, temperature); err != nil {
		return err
	}
	c.Softmax = &sc.rec.softmax
	copy(sc.probs, c.Softmax.Probs) // the same bits Probs gives
	return nil
}

// Compact is c as Choose gives it, in memory of its own: the summaries,
// without what only a recorded choice holds (the stages' Removed,
// Changed, Logits and Probs, the draw's Order and CDF, the softmax).
// The summaries of a choice recorded and of the same choice made compact
// are the same.
func (c *Choice) Compact() Choice {
	out := *c
	out.Softmax = nil
	out.Stages = slices.Clone(c.Stages)
	for i := range out.Stages {
		st := &out.Stages[i]
		st.Removed, st.Changed, st.Logits, st.Probs = nil, nil, nil, nil
	}
	if c.Draw != nil {
		d := *c.Draw
		d.Order, d.CDF = nil, nil
		out.Draw = &d
	}
	return out
}

// add appends st to the stages of c.
func (c *Choice) add(st Stage) { c.Stages = append(c.Stages, st) }

// flip draws the one uniform number of a sampled token.
func flip(rng *RNG) (float32, error) {
	if rng == nil || rng.State == 0 {
		return 0, errors.New("sampler: sampling needs an RNG with a nonzero state")
	}
	return rng.Float32(), nil
}

// grow returns x resized to n, reusing its memory when it is large enough.
func grow[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	return x[:n]
}

// list is *buf emptied, with room for n, to append a recorded list to: never
// nil, as a recorded list is empty rather than absent.
func list[T any](buf *[]T, n int) []T {
	if *buf == nil || cap(*buf) < n {
		*buf = make([]T, 0, n)
	}
	return (*buf)[:0]
}

// zeros is *buf resized to n and cleared.
func zeros(buf *[]float64, n int) []float64 {
	*buf = grow(*buf, n)
	clear(*buf)
	return *buf
}
