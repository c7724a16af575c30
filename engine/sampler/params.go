package sampler

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Param is one numeric setting of Settings and every rule about it. Params
// is the one home of those rules: Settings.Validate checks each field with
// its Param, package link reads and writes them in links by Name, the
// command line makes a flag of each, and the playground renders a field of
// each from Label, Integer, Min, Max and Step.
type Param struct {
	Name      string    // in links, and with '-' for '_' on the command line: "top_k"
	Label     string    // for people: "top-k"
	Doc       string    // what it does, in one line
	Integer   bool      // it takes whole numbers only
	Min, Max  float64   // the values it takes, both ends included
	Step      float64   // a sensible step for a slider or a number field
	Off       []float64 // the values that turn its stage off; none for temperature and seed
	Filter    bool      // a filter after the softmax, which greedy decoding skips
	ChainOnly bool      // run.c has no such stage: in run.c mode the value must be one of Off
	Stage     string    // the Name of the Param that switches this setting's stage on, if another: mirostat_tau's is "mirostat"

	get func(Settings) float64
	set func(*Settings, float64)
}

// maxSeed is the largest seed, 2⁵³ − 1 (JavaScript's
// Number.MAX_SAFE_INTEGER): every whole number up to it is exact in a
// float64, as the playground and Param.Get hold it, and any larger one
// rounds to at least 2⁵³, so Check cannot pass a seed that rounding changed.
const maxSeed = 1<<53 - 1

// Params are the numeric settings, in the order a person meets them (and
// links and the sampler doc list them). The maxima are far beyond what is
// useful, so that they only stop nonsense: at temperature 100 every model
// here is uniform to display precision, top-k 2²⁰ exceeds any vocabulary
// a browser can hold, and a repetition penalty of 100 erases any token.
var Params = []Param{
	{Name: "temperature", Label: "temperature", Min: 0, Max: 100, Step: 0.05,
		Doc: "divides the logits before the softmax; 0 is greedy decoding (the most probable token)",
		get: func(s Settings) float64 { return s.Temperature },
		set: func(s *Settings, v float64) { s.Temperature = v }},
	{Name: "top_k", Label: "top-k", Integer: true, Min: 0, Max: 1 << 20, Step: 1, Off: []float64{0},
		Filter: true, ChainOnly: true,
		Doc: "keeps the k most probable tokens; 0 is off",
		get: func(s Settings) float64 { return float64(s.TopK) },
		set: func(s *Settings, v float64) { s.TopK = int(v) }},
	{Name: "top_p", Label: "top-p", Min: 0, Max: 1, Step: 0.01, Off: []float64{0, 1}, Filter: true,
		// 0 is off as in run.c; llama.cpp and Hugging Face keep one token at
		// top_p = 0, which is top_k = 1 here (docs/design.md says so).
		Doc: "keeps the most probable tokens until their probability reaches p; 0 or 1 is off",
		get: func(s Settings) float64 { return s.TopP },
		set: func(s *Settings, v float64) { s.TopP = v }},
	{Name: "min_p", Label: "min-p", Min: 0, Max: 1, Step: 0.01, Off: []float64{0}, Filter: true, ChainOnly: true,
		Doc: "keeps the tokens at least m times as probable as the most probable one; 0 is off",
		get: func(s Settings) float64 { return s.MinP },
		set: func(s *Settings, v float64) { s.MinP = v }},
	{Name: "repetition_penalty", Label: "repetition penalty", Min: 0, Max: 100, Step: 0.05, Off: []float64{0, 1},
		ChainOnly: true,
		Doc:       "divides positive (multiplies negative) logits of tokens already in the context; 0 or 1 is off",
		get:       func(s Settings) float64 { return s.RepetitionPenalty },
		set:       func(s *Settings, v float64) { s.RepetitionPenalty = v }},
	{Name: "seed", Label: "seed", Integer: true, Min: 1, Max: maxSeed, Step: 1,
		Doc: "the random generator's first state; the same seed gives the same draws",
		get: func(s Settings) float64 { return float64(s.Seed) },
		set: func(s *Settings, v float64) { s.Seed = uint64(v) }},
}

// LlamaParams are the numeric settings only llama.cpp mode reads, which
// the chain and run.c do not have: llama.cpp's mirostat and DRY stages
// (common/common.h's common_params_sampling names them). Their zero values
// are off, and in every other mode they must be 0. A stage switched on
// takes llama.cpp's defaults for its other settings where they are 0 and
// not given (compare.StageDefaults); the settings of a stage left off play
// no part (InPlay), and hold llama.cpp's defaults in a llama.cpp session
// that started from them (compare.Defaults), so that they show.
var LlamaParams = []Param{
	{Name: "mirostat", Label: "mirostat", Integer: true, Min: 0, Max: 2, Step: 1, Off: []float64{0},
		Doc: "1 or 2: llama.cpp's mirostat (v1 or v2) instead of its chain, aiming at a surprise of tau bits; 0 is off",
		get: func(s Settings) float64 { return float64(s.Mirostat) },
		set: func(s *Settings, v float64) { s.Mirostat = int(v) }},
	{Name: "mirostat_tau", Label: "mirostat tau", Min: 0, Max: 100, Step: 0.1, Stage: "mirostat",
		Doc: "mirostat's target surprise, in bits (llama.cpp's default 5); mu starts at 2·tau",
		get: func(s Settings) float64 { return s.MirostatTau },
		set: func(s *Settings, v float64) { s.MirostatTau = v }},
	{Name: "mirostat_eta", Label: "mirostat eta", Min: 0, Max: 10, Step: 0.01, Stage: "mirostat",
		Doc: "mirostat's learning rate: how far mu moves after each token (llama.cpp's default 0.1)",
		get: func(s Settings) float64 { return s.MirostatEta },
		set: func(s *Settings, v float64) { s.MirostatEta = v }},
	{Name: "dry_multiplier", Label: "DRY multiplier", Min: 0, Max: 100, Step: 0.05, Off: []float64{0},
		Doc: "DRY: a token that would extend a repetition of n ≥ allowed length tokens loses multiplier·base^(n − allowed length) of logit; 0 is off",
		get: func(s Settings) float64 { return s.DryMultiplier },
		set: func(s *Settings, v float64) { s.DryMultiplier = v }},
	{Name: "dry_base", Label: "DRY base", Min: 0, Max: 100, Step: 0.05, Stage: "dry_multiplier",
		Doc: "DRY's base, at least 1 when DRY is on (llama.cpp's default 1.75)",
		get: func(s Settings) float64 { return s.DryBase },
		set: func(s *Settings, v float64) { s.DryBase = v }},
	{Name: "dry_allowed_length", Label: "DRY allowed length", Integer: true, Min: 0, Max: 4096, Step: 1, Stage: "dry_multiplier",
		Doc: "the longest repetition DRY lets pass unpenalised (llama.cpp's default 2)",
		get: func(s Settings) float64 { return float64(s.DryAllowedLength) },
		set: func(s *Settings, v float64) { s.DryAllowedLength = int(v) }},
	{Name: "dry_penalty_last_n", Label: "DRY last n", Integer: true, Min: 0, Max: 1 << 20, Step: 1, Off: []float64{0},
		Stage: "dry_multiplier",
		Doc:   "how many of the last tokens DRY scans for repetitions (llama.cpp's default 64); 0 is off",
		get:   func(s Settings) float64 { return float64(s.DryPenaltyLastN) },
		set:   func(s *Settings, v float64) { s.DryPenaltyLastN = int(v) }},
}

// Get returns p's value in s.
func (p Param) Get(s Settings) float64 { return p.get(s) }

// Set sets p's value in s to v, which Check accepts.
func (p Param) Set(s *Settings, v float64) { p.set(s, v) }

// Check returns nil if p takes v, else an error that names p and says
// which values it takes: "top_k: 2.5 is not a whole number from 0 to
// 1,048,576".
func (p Param) Check(v float64) error {
	if !(v >= p.Min && v <= p.Max) || p.Integer && v != math.Trunc(v) { // !(…) catches NaN
		return fmt.Errorf("%s: %s is not %s", p.Name, Readable(v), p.Range())
	}
	return nil
}

// Range says in words which values p takes: "a number from 0 to 1", "a
// whole number from 0 to 1,048,576".
func (p Param) Range() string {
	kind := "a number"
	if p.Integer {
		kind = "a whole number"
	}
	return kind + " from " + Readable(p.Min) + " to " + Readable(p.Max)
}

// IsOff reports whether v turns p's stage off.
func (p Param) IsOff(v float64) bool { return slices.Contains(p.Off, v) }

// InPlay reports whether p's value in s plays a part in sampling: false
// for a setting of a stage that s switches off (mirostat_tau with
// mirostat 0), whose value s keeps only to show it.
func (p Param) InPlay(s Settings) bool {
	if p.Stage == "" {
		return true
	}
	i := slices.IndexFunc(LlamaParams, func(q Param) bool { return q.Name == p.Stage })
	return !LlamaParams[i].IsOff(LlamaParams[i].Get(s))
}

// Readable writes x for people: a whole number below 2⁵³ in digits grouped
// by commas (1,048,576, never 1.048576e+06), anything else in the shortest
// form that reads back as x.
func Readable(x float64) string {
	if x != math.Trunc(x) || math.Abs(x) > maxSeed {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	digits := strconv.FormatFloat(math.Abs(x), 'f', -1, 64)
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}
