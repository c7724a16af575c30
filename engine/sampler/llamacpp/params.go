package llamacpp

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Sampler names one stage of the chain, as llama.cpp's enum
// common_sampler_type (common/common.h).
type Sampler byte

// The stages, by the letter llama.cpp's --sampling-seq uses for each
// (common_sampler_type_to_chr in common/sampling.cpp).
const (
	Penalties Sampler = 'e'
	DRY       Sampler = 'd'
	TopNSigma Sampler = 's'
	TopK      Sampler = 'k'
	Typical   Sampler = 'y'
	TopP      Sampler = 'p'
	MinP      Sampler = 'm'
	XTC       Sampler = 'x'
	Temp      Sampler = 't'
	Infill    Sampler = 'i'
	AdaptiveP Sampler = 'a'
)

// names are the canonical names of common_sampler_type_to_str.
var names = map[Sampler]string{
	Penalties: "penalties", DRY: "dry", TopNSigma: "top_n_sigma", TopK: "top_k",
	Typical: "typ_p", TopP: "top_p", MinP: "min_p", XTC: "xtc", Temp: "temperature",
	Infill: "infill", AdaptiveP: "adaptive_p",
}

func (s Sampler) String() string {
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("Sampler(%q)", byte(s))
}

// Params mirrors llama.cpp's common_params_sampling (common/common.h), the
// fields that the stages here read. Floats are float32 as there.
type Params struct {
	Seed             uint32 // for the final draw and XTC's own generator
	MinKeep          int32  // top-p, min-p, typical and XTC keep at least this many (0: 1)
	TopK             int32  // ≤ 0 is off
	TopP             float32
	MinP             float32
	XTCProbability   float32
	XTCThreshold     float32
	TypP             float32
	Temp             float32
	DynatempRange    float32
	DynatempExponent float32
	PenaltyLastN     int32 // the last n tokens of the history are penalised; 0 is off
	PenaltyRepeat    float32
	PenaltyFreq      float32
	PenaltyPresent   float32
	TopNSigma        float32 // ≤ 0 is off
	// DRY (see dry.go) is on when DryMultiplier is not 0, DryBase is at
	// least 1 and DryPenaltyLastN is above 0 (a negative one is 0, as
	// llama_sampler_init_dry makes it). Its DryBreakers are text, which
	// it turns into token sequences through Vocab when the chain is made;
	// Vocab may be nil when DRY is off or has no breakers.
	DryMultiplier    float32
	DryBase          float32
	DryAllowedLength int32 // a repetition this long is not yet penalised
	DryPenaltyLastN  int32 // DRY reads the last n tokens of the history
	DryBreakers      []string
	Vocab            Vocab
	// Mirostat 1 or 2 replaces the chain as common_sampler_init does:
	// temp, then mirostat (v1, m = 100) or mirostat v2 with MirostatTau
	// and MirostatEta, each drawing from its own generator seeded with
	// Seed; Samplers are then not used. 0 is off.
	Mirostat    int32
	MirostatTau float32 // the target surprise, in bits; mu starts at 2·tau
	MirostatEta float32 // the learning rate of mu
	Samplers    []Sampler
}

// DefaultSeed is the seed of Defaults. llama.cpp's default,
// LLAMA_DEFAULT_SEED (0xFFFFFFFF), means a seed from the clock or
// /dev/random, which no one can reproduce; it is refused here.
const DefaultSeed = 5489

// llamaDefaultSeed is LLAMA_DEFAULT_SEED (include/llama.h).
const llamaDefaultSeed = 0xFFFFFFFF

// Defaults returns common_params_sampling's defaults, but for Seed
// (DefaultSeed): penalties, DRY, top-n-sigma, top-k 40, typical, top-p 0.95,
// min-p 0.05, XTC, temperature 0.8, in the order "edskypmxt", with the
// penalties, DRY, top-n-sigma, typical and XTC switched off by their values
// (DRY by multiplier 0, with base 1.75, allowed length 2, the last 64
// tokens and DefaultBreakers); mirostat off, with tau 5 and eta 0.1.
func Defaults() Params {
	return Params{
		Seed:             DefaultSeed,
		TopK:             40,
		TopP:             0.95,
		MinP:             0.05,
		XTCProbability:   0,
		XTCThreshold:     0.10,
		TypP:             1,
		Temp:             0.80,
		DynatempExponent: 1,
		PenaltyLastN:     64,
		PenaltyRepeat:    1,
		DryBase:          1.75,
		DryAllowedLength: 2,
		DryPenaltyLastN:  64,
		DryBreakers:      slices.Clone(DefaultBreakers),
		TopNSigma:        -1,
		MirostatTau:      5,
		MirostatEta:      0.1,
		Samplers:         []Sampler{Penalties, DRY, TopNSigma, TopK, Typical, TopP, MinP, XTC, Temp},
	}
}

// ParseSequence reads a letter string such as llama.cpp's --sampling-seq
// "edskypmxt" (common_sampler_types_from_chars). llama.cpp skips an
// unknown letter with a warning; here it is an error.
func ParseSequence(letters string) ([]Sampler, error) {
	var out []Sampler
	for _, c := range []byte(letters) {
		s := Sampler(c)
		if _, ok := names[s]; !ok {
			return nil, fmt.Errorf("samplers: unknown letter %q in %q", c, letters)
		}
		out = append(out, s)
	}
	return out, nil
}

// ParseNames reads names separated by ';', as llama.cpp's --samplers
// (common_sampler_types_from_names): the canonical names, case-insensitive,
// with '-' or nothing for '_' ("top-k", "topk"), and "nucleus", "temp" and
// "typ". An unknown name is an error here (a warning there).
func ParseNames(list string) ([]Sampler, error) {
	byName := map[string]Sampler{"nucleus": TopP, "temp": Temp, "typ": Typical}
	for s, n := range names {
		byName[n] = s
		if strings.Contains(n, "_") {
			byName[strings.ReplaceAll(n, "_", "-")] = s
			byName[strings.ReplaceAll(n, "_", "")] = s
		}
	}
	var out []Sampler
	for _, n := range strings.Split(list, ";") {
		s, ok := byName[strings.ToLower(n)]
		if !ok {
			return nil, fmt.Errorf("samplers: unknown name %q in %q", n, list)
		}
		out = append(out, s)
	}
	return out, nil
}

// Validate reports the first setting the chain cannot run, naming it:
// NaN or infinite numbers, what common_sampler_init refuses (a repetition
// penalty that is not positive with a finite inverse), negative counts,
// LLAMA_DEFAULT_SEED, a mirostat version other than 0, 1 and 2, a DRY
// breaker holding a NUL byte (which ends a C string), and the stages not
// implemented here (not checked with mirostat, whose chain does not use
// Samplers). The vocabulary is not a setting: New checks that DRY has one.
func (p *Params) Validate() error {
	floats := []struct {
		name string
		v    float32
	}{
		{"top_p", p.TopP}, {"min_p", p.MinP}, {"xtc_probability", p.XTCProbability},
		{"xtc_threshold", p.XTCThreshold}, {"typ_p", p.TypP}, {"temp", p.Temp},
		{"dynatemp_range", p.DynatempRange}, {"dynatemp_exponent", p.DynatempExponent},
		{"penalty_repeat", p.PenaltyRepeat}, {"penalty_freq", p.PenaltyFreq},
		{"penalty_present", p.PenaltyPresent}, {"dry_multiplier", p.DryMultiplier}, {"dry_base", p.DryBase},
		{"top_n_sigma", p.TopNSigma}, {"mirostat_tau", p.MirostatTau},
		{"mirostat_eta", p.MirostatEta},
	}
	for _, f := range floats {
		if math.IsNaN(float64(f.v)) || math.IsInf(float64(f.v), 0) {
			return fmt.Errorf("%s: %v is not a finite number", f.name, f.v)
		}
	}
	if r := p.PenaltyRepeat; r <= 0 || math.IsInf(float64(1/r), 0) {
		return fmt.Errorf("penalty_repeat: %v must be greater than 0 with a finite inverse", r)
	}
	switch {
	case p.MinKeep < 0:
		return fmt.Errorf("min_keep: %d is negative", p.MinKeep)
	case p.PenaltyLastN < 0:
		// llama.cpp's command line reads -1 as the context size; a chain
		// on bare logits has none.
		return fmt.Errorf("penalty_last_n: %d is negative", p.PenaltyLastN)
	case p.Seed == llamaDefaultSeed:
		return fmt.Errorf("seed: %d is LLAMA_DEFAULT_SEED, which llama.cpp replaces with a random seed", p.Seed)
	case p.Mirostat < 0 || p.Mirostat > 2:
		return fmt.Errorf("mirostat: %d is not 0 (off), 1 or 2", p.Mirostat)
	case p.Mirostat != 0:
		return nil // the chain is temp and mirostat: Samplers are not used
	}
	for _, s := range p.Samplers {
		switch s {
		case Penalties, TopNSigma, TopK, Typical, TopP, MinP, XTC, Temp:
		case DRY:
			for _, b := range p.DryBreakers {
				if strings.IndexByte(b, 0) >= 0 {
					return fmt.Errorf("dry_sequence_breakers: %q holds a NUL byte", b)
				}
			}
		default:
			return fmt.Errorf("samplers: %v is not implemented here", s)
		}
	}
	return nil
}
