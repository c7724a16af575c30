package sampler

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Mode is a session's sampler, by the name links and the command line
// give it. Sample runs Chain and RunC; LlamaCpp and HF are other
// runtimes' chains, which package compare runs (its Stepper): they map
// the numeric settings onto their runtime with compare's Chain.Follow and
// keep that runtime's defaults for everything else.
type Mode string

// The modes.
const (
	Chain    Mode = "chain"     // the stage-by-stage chain; the default, also meant by ""
	RunC     Mode = "runc"      // llama2.c run.c's sample(), reproduced in float32
	LlamaCpp Mode = "llama.cpp" // llama.cpp's default sampler chain, edskypmxt, bit for bit
	HF       Mode = "hf"        // Hugging Face generate() with do_sample=True
)

// Modes are the modes, in the order the help and links list them.
var Modes = []Mode{Chain, RunC, LlamaCpp, HF}

// joinModes lists modes as the help and errors write them: "chain, runc".
func joinModes(modes []Mode) string {
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// Settings configure Sample. The zero value of every stage field turns that
// stage off; Params gives each numeric field's range.
type Settings struct {
	Mode              Mode    // one of Modes, or "" for Chain
	Temperature       float64 // T; 0 is greedy (argmax)
	TopK              int     // k; 0 is off (chain only)
	TopP              float64 // p; 0 or 1 is off
	MinP              float64 // m; 0 is off (chain only)
	RepetitionPenalty float64 // r; 0 or 1 is off (chain only)
	Seed              uint64  // initial RNG state, ≥ 1 (xorshift's state 0 never changes)

	// LlamaSettings are llama.cpp mode's own; in every other mode they
	// are all 0. Embedded, their fields read as Settings' own, in Go and
	// in JSON alike.
	LlamaSettings

	// IgnoreEOS masks the tokens that end a text, a session's EOS and
	// BOS, as llama.cpp's --ignore-eos gives them a logit bias of −Inf:
	// package session sets their logits to −Inf after the step's edits,
	// before any sampler reads them, so that none is chosen. Valid in
	// every mode; Sample itself does not read it.
	IgnoreEOS bool `json:",omitempty"`
}

// LlamaSettings are the settings only llama.cpp mode reads (LlamaParams,
// and Sequence), which the chain, run.c and Hugging Face do not have. The
// zero value is llama.cpp's default chain with mirostat and DRY off. In
// JSON each is left out when 0, so that the settings of every other mode
// read without them.
type LlamaSettings struct {
	Sequence         string  `json:",omitempty"` // llama.cpp's stages by letter, such as "edkt" (--sampling-seq); "" is its default, edskypmxt
	Mirostat         int     `json:",omitempty"` // 1 or 2: mirostat v1 or v2 in place of the sequence; 0 is off
	MirostatTau      float64 `json:",omitempty"` // mirostat's target surprise, in bits
	MirostatEta      float64 `json:",omitempty"` // mirostat's learning rate
	DryMultiplier    float64 `json:",omitempty"` // DRY; 0 is off
	DryBase          float64 `json:",omitempty"` // at least 1 when DRY is on
	DryAllowedLength int     `json:",omitempty"`
	DryPenaltyLastN  int     `json:",omitempty"` // 0 is off
}

// SettingError is settings a sampler refuses. Param names the setting at
// fault as links and the command line name it: a Param's Name, "sampler"
// for the mode or chain, "sequence" for llama.cpp's letters. Reason says
// what is wrong, in words. Its message is "sampler: " and the Reason, so
// that a caller who shows the reason to a person (a link's ParamError,
// the command line's --sampler) takes Reason rather than cutting the
// prefix off the message.
type SettingError struct {
	Param  string
	Reason string
}

func (e *SettingError) Error() string { return "sampler: " + e.Reason }

// settingError is a *SettingError of param whose reason is format's.
func settingError(param, format string, args ...any) *SettingError {
	return &SettingError{Param: param, Reason: fmt.Sprintf(format, args...)}
}

// MaxSequence is the most letters Settings.Sequence may have: each stage
// copies the candidates, and llama.cpp's own sequence has 9.
const MaxSequence = 32

// DefaultSettings are greedy chain decoding with every filter off and seed
// 42, so that switching the temperature on gives a reproducible draw.
func DefaultSettings() Settings {
	return Settings{Mode: Chain, RepetitionPenalty: 1, Seed: 42}
}

// Validate reports the first invalid field as a *SettingError: an
// unknown mode, a value outside its Param's range (a NaN or an infinity
// is outside every range), a chain-only stage switched on in run.c mode,
// a setting of llama.cpp's own (LlamaParams, Sequence) that is not 0 in
// another mode, or a Sequence of more than MaxSequence letters. What
// needs the settings together in llama.cpp and Hugging Face modes (a seed
// beyond 32 bits, temperature 0 for Hugging Face, a letter llama.cpp has
// no stage for, DRY on with a base below 1) is package compare's to
// check, once all are set.
func (s Settings) Validate() error {
	if s.Mode != "" && !slices.Contains(Modes, s.Mode) {
		return settingError("sampler", "mode %q is none of %s", s.Mode, joinModes(Modes))
	}
	for _, p := range LlamaParams {
		v := p.Get(s)
		if err := p.Check(v); err != nil {
			return &SettingError{Param: p.Name, Reason: err.Error()}
		}
		if s.Mode != LlamaCpp && v != 0 {
			return settingError(p.Name, "%s is llama.cpp's: it must be 0 in %s mode, not %s", p.Name, cmp.Or(s.Mode, Chain), Readable(v))
		}
	}
	switch {
	case s.Sequence != "" && s.Mode != LlamaCpp:
		return settingError("sequence", "a sequence of stages (%.12q) is llama.cpp's, not %s mode's", s.Sequence, cmp.Or(s.Mode, Chain))
	case len(s.Sequence) > MaxSequence:
		return settingError("sequence", "sequence %.12q…: %d letters, more than the %d stages a chain may have", s.Sequence, len(s.Sequence), MaxSequence)
	}
	for _, p := range Params {
		v := p.Get(s)
		if err := p.Check(v); err != nil {
			return &SettingError{Param: p.Name, Reason: err.Error()}
		}
		if s.Mode == RunC && p.ChainOnly && !p.IsOff(v) {
			off := make([]string, len(p.Off))
			for i, x := range p.Off {
				off[i] = Readable(x)
			}
			return settingError(p.Name, "run.c has no %s, so %s must be %s in run.c mode, not %s",
				p.Label, p.Name, strings.Join(off, " or "), Readable(v))
		}
	}
	return nil
}

// penalised reports whether the repetition penalty is on.
func (s Settings) penalised() bool {
	return s.RepetitionPenalty != 0 && s.RepetitionPenalty != 1
}

// Runtime reports whether s's mode is another runtime's chain (LlamaCpp or
// HF), which package compare runs, rather than one Sample runs.
func (s Settings) Runtime() bool { return s.Mode == LlamaCpp || s.Mode == HF }

// InMode is s switched to mode: the settings of llama.cpp's own
// (LlamaParams, Sequence) go back to 0 when mode is not llama.cpp's, which
// has no use for them and would refuse them.
func (s Settings) InMode(mode Mode) Settings {
	s.Mode = mode
	if mode != LlamaCpp {
		s.LlamaSettings = LlamaSettings{}
	}
	return s
}
