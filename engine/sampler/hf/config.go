package hf

// Config holds the fields of transformers' GenerationConfig
// (src/transformers/generation/configuration_utils.py at 008f5c8c) that
// choose the processors of a sampling generate(): do_sample=True,
// num_beams=1, so every warper gets min_tokens_to_keep = 1. Each field is
// named as in GenerationConfig, and its off value is the one with which
// _get_logits_processor leaves its processor out.
//
// Two differences from Python. A Go float cannot be None, so MinP 0 stands
// for min_p=None (HF's min_p=0.0 adds a MinPLogitsWarper that removes
// nothing: the scores are the same). And values that HF silently ignores,
// because _get_logits_processor's condition leaves the warper out before
// its constructor can check them, are errors here: a NaN top_p, typical_p,
// epsilon_cutoff or eta_cutoff, typical_p > 1, and epsilon_cutoff or
// eta_cutoff outside [0, 1).
type Config struct {
	RepetitionPenalty float64 // repetition_penalty: > 0; 1 is off
	Temperature       float64 // temperature: > 0; 1 is off
	TopK              int     // top_k: ≥ 0; 0 is off
	TopP              float64 // top_p: in [0, 1]; 1 is off
	MinP              float64 // min_p: in [0, 1]; 0 is off (None)
	TypicalP          float64 // typical_p: in (0, 1]; 1 is off
	EpsilonCutoff     float64 // epsilon_cutoff: in [0, 1); 0 is off
	EtaCutoff         float64 // eta_cutoff: in [0, 1); 0 is off
}

// Defaults are GenerationConfig's defaults: temperature 1, top_k 50,
// top_p 1, min_p None, typical_p 1, epsilon_cutoff 0, eta_cutoff 0,
// repetition_penalty 1. With do_sample=True they sample from the 50 most
// probable tokens (and the tokens tied with the 50th).
func Defaults() Config {
	return Config{RepetitionPenalty: 1, Temperature: 1, TopK: 50, TopP: 1, TypicalP: 1}
}

// Validate reports the first invalid setting by its GenerationConfig name.
// A NaN is invalid everywhere, and so is an infinity.
func (c Config) Validate() error {
	_, err := c.processors()
	return err
}

// Processors returns the processors that _get_logits_processor
// (src/transformers/generation/utils.py at 000034a4) builds for c, in its
// order:
//
//	RepetitionPenaltyLogitsProcessor  if repetition_penalty ≠ 1
//	TemperatureLogitsWarper           if temperature ≠ 1
//	TopKLogitsWarper                  if top_k ≠ 0
//	TopPLogitsWarper                  if top_p < 1
//	MinPLogitsWarper                  if min_p is not None
//	TypicalLogitsWarper               if typical_p < 1
//	EpsilonLogitsWarper               if 0 < epsilon_cutoff < 1
//	EtaLogitsWarper                   if 0 < eta_cutoff < 1
//
// The penalty is a "processor", applied whether or not generate samples;
// the rest are the "warpers" it adds only when do_sample is true, after
// every processor (so temperature divides the penalised scores). Nothing
// else that _get_logits_processor can add is on by default.
func Processors(c Config) ([]Processor, error) {
	return c.processors()
}

func (c Config) processors() ([]Processor, error) {
	const minKeep = 1 // num_beams = 1
	var ps []Processor
	for _, st := range []struct {
		name string
		v    float64
		on   bool // the setting is not at its off value
		make func() (Processor, error)
		// accepts is the setting's range where it differs from its
		// processor's, which excludes the off value.
		accepts string
	}{
		{"repetition_penalty", c.RepetitionPenalty, c.RepetitionPenalty != 1,
			func() (Processor, error) { return NewRepetitionPenalty(c.RepetitionPenalty) }, ""},
		{"temperature", c.Temperature, c.Temperature != 1,
			func() (Processor, error) { return NewTemperature(c.Temperature) }, ""},
		{"top_k", float64(c.TopK), c.TopK != 0,
			func() (Processor, error) { return NewTopK(c.TopK, minKeep) }, ""},
		{"top_p", c.TopP, c.TopP != 1,
			func() (Processor, error) { return NewTopP(c.TopP, minKeep) }, ""},
		{"min_p", c.MinP, c.MinP != 0,
			func() (Processor, error) { return NewMinP(c.MinP, minKeep) }, ""},
		{"typical_p", c.TypicalP, c.TypicalP != 1,
			func() (Processor, error) { return NewTypical(c.TypicalP, minKeep) }, "in (0, 1]"},
		{"epsilon_cutoff", c.EpsilonCutoff, c.EpsilonCutoff != 0,
			func() (Processor, error) { return NewEpsilon(c.EpsilonCutoff, minKeep) }, "in [0, 1)"},
		{"eta_cutoff", c.EtaCutoff, c.EtaCutoff != 0,
			func() (Processor, error) { return NewEta(c.EtaCutoff, minKeep) }, "in [0, 1)"},
	} {
		if !st.on {
			continue
		}
		p, err := st.make()
		if err != nil && st.accepts != "" {
			// The processor's own range leaves out the off value.
			return nil, bad(st.name, st.v, st.accepts)
		}
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}
