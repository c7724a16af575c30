package sampler

import (
	"fmt"
	"math"
)

// Modes of Sample.
const (
	Chain = "chain" // the stage-by-stage chain; the default, also meant by ""
	RunC  = "runc"  // llama2.c run.c's sample(), reproduced in float32
)

// Settings configure Sample. The zero value of every stage field turns that
// stage off.
type Settings struct {
	Mode              string  // Chain (or "") or RunC
	Temperature       float64 // T ≥ 0; 0 is greedy (argmax)
	TopK              int     // k ≥ 0; 0 is off (chain only)
	TopP              float64 // p in [0, 1]; 0 or 1 is off
	MinP              float64 // m in [0, 1]; 0 is off (chain only)
	RepetitionPenalty float64 // r ≥ 0; 0 or 1 is off (chain only)
	Seed              uint64  // initial RNG state, ≥ 1 (xorshift's state 0 never changes)
}

// DefaultSettings are greedy chain decoding with every filter off and seed
// 42, so that switching the temperature on gives a reproducible draw.
func DefaultSettings() Settings {
	return Settings{Mode: Chain, RepetitionPenalty: 1, Seed: 42}
}

// Validate reports the first invalid field: a NaN, infinite, negative or out
// of range value, an unknown mode, a zero seed, or a chain-only stage
// switched on in run.c mode.
func (s Settings) Validate() error {
	switch {
	case s.Mode != "" && s.Mode != Chain && s.Mode != RunC:
		return fmt.Errorf("sampler: Mode %q is neither %q nor %q", s.Mode, Chain, RunC)
	case !(s.Temperature >= 0) || math.IsInf(s.Temperature, 1):
		return fmt.Errorf("sampler: Temperature %g is not finite and ≥ 0", s.Temperature)
	case s.TopK < 0:
		return fmt.Errorf("sampler: TopK %d is negative", s.TopK)
	case !(s.TopP >= 0 && s.TopP <= 1):
		return fmt.Errorf("sampler: TopP %g is outside [0, 1]", s.TopP)
	case !(s.MinP >= 0 && s.MinP <= 1):
		return fmt.Errorf("sampler: MinP %g is outside [0, 1]", s.MinP)
	case !(s.RepetitionPenalty >= 0) || math.IsInf(s.RepetitionPenalty, 1):
		return fmt.Errorf("sampler: RepetitionPenalty %g is not finite and ≥ 0", s.RepetitionPenalty)
	case s.Seed == 0:
		return fmt.Errorf("sampler: Seed is 0, but xorshift's state 0 never changes; use a seed ≥ 1")
	}
	if s.Mode != RunC {
		return nil
	}
	switch {
	case math.IsInf(float64(float32(s.Temperature)), 0):
		return fmt.Errorf("sampler: Temperature %g overflows float32, which run.c mode uses", s.Temperature)
	case s.TopK != 0:
		return fmt.Errorf("sampler: run.c has no top-k; TopK must be 0 in run.c mode, not %d", s.TopK)
	case s.MinP != 0:
		return fmt.Errorf("sampler: run.c has no min-p; MinP must be 0 in run.c mode, not %g", s.MinP)
	case s.penalised():
		return fmt.Errorf("sampler: run.c has no repetition penalty; RepetitionPenalty must be 0 or 1 in run.c mode, not %g", s.RepetitionPenalty)
	}
	return nil
}

// penalised reports whether the repetition penalty is on.
func (s Settings) penalised() bool {
	return s.RepetitionPenalty != 0 && s.RepetitionPenalty != 1
}
