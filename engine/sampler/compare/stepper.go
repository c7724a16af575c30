package compare

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/hf"
	"nexttoken/engine/sampler/llamacpp"
	"nexttoken/engine/softmax"
)

// ForSession returns the chain that a session in s's mode, sampler.LlamaCpp
// or sampler.HF, samples with: the Preset of ChainName(s) with every
// numeric setting of s mapped onto it by Follow, checked by the runtime's
// own rules (Validate). What Follow does not map keeps the runtime's
// default:
//
//   - llama.cpp (common_params_sampling): the sequence edskypmxt (or s's
//     Sequence; with s's Mirostat, temp then mirostat),
//     penalty_last_n 64, frequency and presence penalties 0, min_keep 0,
//     typical_p 1, top_n_sigma −1, XTC off (probability 0), dynamic
//     temperature off (range 0), DRY's sequence breakers "\n", ":", "\"",
//     "*"; the seed is s's, which must fit llama.cpp's 32 bits and not be
//     LLAMA_DEFAULT_SEED. DRY reads the breakers through a vocabulary,
//     which the Stepper is given; a DRY multiplier with a base below 1,
//     which llama.cpp would silently switch off, is an error.
//   - Hugging Face (GenerationConfig, do_sample=True): typical_p 1,
//     epsilon_cutoff and eta_cutoff 0. Temperature 0 is an error there, as
//     in transformers: its greedy decoding is do_sample=False.
//
// The error names the setting, in the runtime's terms.
func ForSession(s sampler.Settings) (Chain, error) {
	if !s.Runtime() {
		return Chain{}, settingError("sampler", "mode %q is not another runtime's chain", s.Mode)
	}
	c, err := Preset(ChainName(s), s.Seed)
	if err != nil {
		return Chain{}, settingError("sampler", "%v", err)
	}
	c.Follow(s, func(string) bool { return true })
	if s.DryMultiplier != 0 && s.DryBase < 1 {
		return Chain{}, settingError("dry_base", "dry_base: %s is below 1, which would switch DRY off (llama.cpp's default is 1.75)", sampler.Readable(s.DryBase))
	}
	if err := c.Validate(); err != nil {
		return Chain{}, settingError("sampler", "%s mode: %v", s.Mode, err)
	}
	return c, nil
}

// ChainName is the name of the chain a session with settings s samples
// with: its mode, but for llama.cpp mirostat or mirostat2 when s's
// Mirostat is 1 or 2, else its Sequence when it has one.
func ChainName(s sampler.Settings) string {
	switch {
	case s.Mode != sampler.LlamaCpp:
		return string(cmp.Or(s.Mode, sampler.Chain))
	case s.Mirostat == 1:
		return Mirostat
	case s.Mirostat == 2:
		return Mirostat2
	}
	return cmp.Or(s.Sequence, LlamaCpp)
}

// SetChain makes s sample with the chain called name, the inverse of
// ChainName: one of Names (in any case) or llama.cpp letters such as
// "edkt", which mean llama.cpp mode with that Sequence (none for its
// default, edskypmxt). It sets s's Mode, Mirostat and Sequence, and leaves
// the rest, so that a runtime's defaults may come after (Defaults).
func SetChain(s *sampler.Settings, name string) error {
	for _, n := range Names {
		if strings.EqualFold(name, n) {
			name = n
		}
	}
	if name == "" { // Preset's llama.cpp chain of no stages
		return settingError("sampler", "no chain named: one of %s, or llama.cpp letters such as edkt", strings.Join(Names, ", "))
	}
	c, err := Preset(name, 0)
	if err != nil {
		return settingError("sampler", "%v", err)
	}
	s.Mode, s.Mirostat, s.Sequence = c.Runtime(), int(c.Llama.Mirostat), ""
	if s.Mode == sampler.LlamaCpp && s.Mirostat == 0 && name != LlamaCpp && name != defaultSequence {
		s.Sequence = name
	}
	return nil
}

// defaultSequence is llama.cpp's default sequence in letters.
var defaultSequence = func() string {
	var b strings.Builder
	for _, st := range llamacpp.Defaults().Samplers {
		b.WriteByte(byte(st))
	}
	return b.String()
}()

// StageDefaults gives the llama.cpp stages that s switches on by a
// setting given (mirostat, dry_multiplier) llama.cpp's defaults
// (Defaults) for their settings that are 0 and not given: mirostat's tau
// 5 and eta 0.1; DRY's base 1.75, allowed length 2 and last 64 tokens.
// So mirostat=2 over settings without them, in a link over a share link
// or in the page's fields, is llama.cpp's --mirostat 2; a stage's
// setting 0 that came with the stage stays.
func StageDefaults(s *sampler.Settings, given func(param string) bool) {
	d := runtimeDefaults(sampler.LlamaCpp)
	for _, p := range sampler.LlamaParams {
		if p.Stage != "" && given(p.Stage) && p.InPlay(*s) && !given(p.Name) && p.Get(*s) == 0 {
			p.Set(s, p.Get(d))
		}
	}
}

// shortest is x as the shortest decimal that reads back as x in float32:
// 0.8, not the float64 0.800000011920929 that x is.
func shortest(x float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return v
}

// Defaults are the settings of a session in mode, sampler.LlamaCpp or
// sampler.HF, that give its runtime's defaults (those of Preset) once
// Follow maps them back, with seed: llama.cpp's temperature 0.8, top-k 40,
// top-p 0.95 and min-p 0.05, mirostat and DRY off with their settings at
// llama.cpp's defaults (tau 5, eta 0.1; base 1.75, allowed length 2, the
// last 64 tokens), which play no part until the stage is switched on but
// show what it would run with; Hugging Face's temperature 1, top-k 50
// and top-p 1 (off there, as 1 and 0 are here). The seed must fit the
// runtime (llama.cpp's 32 bits).
func Defaults(mode sampler.Mode, seed uint64) (sampler.Settings, error) {
	if !(sampler.Settings{Mode: mode}).Runtime() {
		return sampler.Settings{}, settingError("sampler", "mode %q is not another runtime's chain", mode)
	}
	if _, err := Preset(string(mode), seed); err != nil {
		return sampler.Settings{}, settingError("sampler", "%v", err)
	}
	s := runtimeDefaults(mode)
	s.Seed = seed
	return s, nil
}

// runtimeDefaults are Defaults of mode, a runtime's, without a seed.
func runtimeDefaults(mode sampler.Mode) sampler.Settings {
	c, _ := Preset(string(mode), 0) // a runtime's preset, which seed 0 fits
	s := sampler.Settings{Mode: mode}
	if mode == sampler.HF {
		h := c.HF
		s.Temperature, s.TopK, s.TopP, s.MinP, s.RepetitionPenalty = h.Temperature, h.TopK, h.TopP, h.MinP, h.RepetitionPenalty
		return s
	}
	l := c.Llama
	s.Temperature, s.TopK, s.TopP, s.MinP, s.RepetitionPenalty =
		shortest(l.Temp), int(l.TopK), shortest(l.TopP), shortest(l.MinP), shortest(l.PenaltyRepeat)
	s.MirostatTau, s.MirostatEta = shortest(l.MirostatTau), shortest(l.MirostatEta)
	s.DryBase, s.DryAllowedLength, s.DryPenaltyLastN = shortest(l.DryBase), int(l.DryAllowedLength), int(l.DryPenaltyLastN)
	return s
}

// ChainSettings is the one rule for the settings of a session that a
// reader asks to sample with the chain called name (as SetChain reads
// it), giving the settings of s that given names (nil names none): the
// command line's --sampler with its flags, a link's sampler= with its
// parameters, the page's decoding select. Mode, Mirostat (unless given)
// and Sequence are the chain's. In llama.cpp and Hugging Face modes each
// numeric setting given is s's and every other the runtime's default
// (Defaults), as llama-cli and generate() would run; in chain and run.c
// modes they are s's, but that llama.cpp's own not given are 0 and, in
// run.c mode, a stage run.c lacks that is not given is off. The seed and
// IgnoreEOS are s's. Only an unknown chain is an error: the settings are the
// session's to check (session.CheckSettings).
func ChainSettings(name string, s sampler.Settings, given func(param string) bool) (sampler.Settings, error) {
	var chosen sampler.Settings
	if err := SetChain(&chosen, name); err != nil {
		return sampler.Settings{}, err
	}
	if given == nil {
		given = func(string) bool { return false }
	}
	out := s.InMode(chosen.Mode)
	if chosen.Runtime() {
		out = runtimeDefaults(chosen.Mode)
		out.Seed, out.IgnoreEOS = s.Seed, s.IgnoreEOS
	}
	for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		switch {
		case given(p.Name):
			p.Set(&out, p.Get(s))
		case chosen.Mode == sampler.RunC && p.ChainOnly && !p.IsOff(p.Get(out)):
			p.Set(&out, p.Off[0])
		}
	}
	out.Mode, out.Sequence = chosen.Mode, chosen.Sequence
	if !given("mirostat") {
		out.Mirostat = chosen.Mirostat
	}
	return out, nil
}

// Stepper samples a session's steps with a runtime's chain (ForSession),
// one step's logits after another, and records each choice in package
// sampler's shape, as Scratch.Choose and Sample record theirs: the stages
// the chain ran (those its values switch off are left out) with the tokens
// they kept and removed, and the draw. It is the one place that turns the
// runtimes' results into a sampler.Choice.
//
// The draw is the runtime's own for llama.cpp: its dist stage, one
// canonical double from its std::mt19937 per step (also when one candidate
// is left), with the generators' state passed in and out as a
// llamacpp.State. Hugging Face's cannot be reproduced, so its steps draw
// u = RNG.Float32() from nexttoken's xorshift and walk the cumulative sum
// in token-id order (hf.Draw); Choice.Note says so.
type Stepper struct {
	set    sampler.Settings
	llama  *llamacpp.Chain
	procs  []hf.Processor
	narrow []float32
	hist   []int32
	probs  []float64
	// removedBy is, for each token, the place in the latest choice's
	// stages of the stage that removed it, or -1.
	removedBy []int8
}

// NewStepper returns the stepper of settings s, whose mode is LlamaCpp or
// HF, or ForSession's error. vocab is the model's vocabulary, which
// llama.cpp's DRY reads its sequence breakers with (see Vocab); it may
// be nil when DRY is off.
func NewStepper(s sampler.Settings, vocab llamacpp.Vocab) (*Stepper, error) {
	c, err := ForSession(s)
	if err != nil {
		return nil, err
	}
	st := &Stepper{set: s}
	if s.Mode == sampler.HF {
		st.procs, err = hf.Processors(c.HF)
	} else {
		c.Llama.Vocab = vocab
		st.llama, err = llamacpp.New(c.Llama)
	}
	if err != nil {
		return nil, settingError("sampler", "%s mode: %v", s.Mode, err)
	}
	return st, nil
}

// Settings are the settings st was made for.
func (st *Stepper) Settings() sampler.Settings { return st.set }

// Probs is the distribution the latest Choose shows: the float64 softmax
// of the logits at the temperature (1 at temperature 0), before any of the
// runtime's stages, as the softmax card shows it. It lives in st until the
// next call.
func (st *Stepper) Probs() []float64 { return st.probs }

// Choose runs the chain on logits, one per token id, with history the
// context so far (the penalties read it), and chooses a token. The chain
// reads the logits rounded to float32, as its runtime is given them. gen is
// where llama.cpp's generators are before the step, and after it on
// success; rng is nexttoken's generator, which a Hugging Face step advances
// by one Float32. A recorded choice (record) holds every stage's removed
// tokens, scores and distribution, the draw's order and cumulative sum, and
// the softmax; a compact one only the summaries, which are the same.
func (st *Stepper) Choose(logits []float64, history []int, rng *sampler.RNG, gen *llamacpp.State, record bool) (*sampler.Choice, error) {
	for i, id := range history {
		if id < 0 || id >= len(logits) {
			return nil, fmt.Errorf("sampler: history[%d] = %d is not a token of a %d-token vocabulary", i, id, len(logits))
		}
	}
	temperature := st.set.Temperature
	if temperature == 0 {
		temperature = 1 // llama.cpp's greedy choice, shown at T = 1
	}
	if cap(st.probs) < len(logits) {
		st.probs = make([]float64, len(logits))
	}
	st.probs = st.probs[:len(logits)]
	if _, _, err := softmax.Probs(st.probs, logits, temperature); err != nil {
		return nil, err
	}
	st.narrow = st.narrow[:0]
	for _, l := range logits {
		st.narrow = append(st.narrow, float32(l))
	}
	if cap(st.removedBy) < len(logits) {
		st.removedBy = make([]int8, len(logits))
	}
	st.removedBy = st.removedBy[:len(logits)]
	for i := range st.removedBy {
		st.removedBy[i] = -1
	}
	var c *sampler.Choice
	var err error
	if st.llama != nil {
		c, err = st.chooseLlama(history, gen, record)
	} else {
		c, err = st.chooseHF(history, rng, record)
	}
	if err != nil {
		return nil, fmt.Errorf("sampler: %s mode: %w", st.set.Mode, err)
	}
	c.Prob = st.probs[c.Token]
	if record {
		if c.Softmax, err = softmax.Compute(logits, temperature); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (st *Stepper) chooseLlama(history []int, gen *llamacpp.State, record bool) (*sampler.Choice, error) {
	st.hist = st.hist[:0]
	for _, id := range history {
		st.hist = append(st.hist, int32(id))
	}
	st.llama.Restore(*gen)
	res, err := st.llama.Sample(st.narrow, st.hist)
	if err != nil {
		return nil, err
	}
	*gen = st.llama.State()
	c := &sampler.Choice{Token: int(res.Token)}
	in := softmax.Widen(nil, st.narrow)
	for _, s := range res.Stages {
		if strings.HasPrefix(s.Name, "?") {
			continue // switched off by its values
		}
		scores := llamaScores(s, len(in))
		st.addStage(c, sampler.StageName(s.Name), in, scores, record)
		in = scores
	}
	last := res.Stages[len(res.Stages)-1].Tokens
	d := &sampler.Draw{U: res.U, Target: res.Target, Index: res.Index, Total: res.Sum}
	if len(last) == 1 {
		// dist takes the one candidate without a sum: it is the whole interval.
		d.Target, d.Hi, d.Total = res.U, 1, 1
	} else {
		d.Hi = res.CDF[res.Index]
		if res.Index > 0 {
			d.Lo = res.CDF[res.Index-1]
		}
	}
	if record {
		d.Order = make([]int, len(last))
		for i, t := range last {
			d.Order[i] = int(t.ID)
		}
		d.CDF = res.CDF
		if len(last) == 1 {
			d.CDF = []float64{1}
		}
	}
	c.Draw = d
	return c, nil
}

func (st *Stepper) chooseHF(history []int, rng *sampler.RNG, record bool) (*sampler.Choice, error) {
	res, err := hf.Run(st.procs, st.narrow, history)
	if err != nil {
		return nil, err
	}
	c := &sampler.Choice{Note: hfNote}
	in := softmax.Widen(nil, st.narrow)
	for _, s := range res.Steps {
		scores := softmax.Widen(nil, s.Scores)
		st.addStage(c, sampler.StageName(s.Name), in, scores, record)
		in = scores
	}
	u := float64(rng.Float32())
	drawn, err := hf.Draw(res.Probs, u)
	if err != nil {
		return nil, err
	}
	c.Token = drawn.Token
	c.Draw = &sampler.Draw{U: u, Target: drawn.Target, Index: drawn.Index, Lo: drawn.Lo, Hi: drawn.Hi, Total: drawn.Total}
	if record {
		var cum float64
		for id, p := range res.Probs {
			if p > 0 {
				cum += float64(p)
				c.Draw.Order = append(c.Draw.Order, id)
				c.Draw.CDF = append(c.Draw.CDF, cum)
			}
		}
	}
	return c, nil
}

// addStage adds to c a runtime's stage that turned the scores in into out,
// in sampler's shape: Survivors the tokens left drawable, Affected the ones
// it removed, RemovedMass their probability in the softmax of in; recorded,
// also the removed tokens, the scores after it and their softmax. The
// tokens it removed are RemovedBy it, compact or recorded.
func (st *Stepper) addStage(c *sampler.Choice, name sampler.StageName, in, out []float64, record bool) {
	b := stageBetween(name, in, out)
	stage := sampler.Stage{Name: name, Survivors: len(b.Kept), Affected: len(b.Removed), RemovedMass: b.RemovedMass}
	if record {
		stage.Removed, stage.Logits, stage.Probs = b.Removed, out, distribution(out)
	}
	for _, id := range b.Removed {
		st.removedBy[id] = int8(len(c.Stages))
	}
	c.Stages = append(c.Stages, stage)
}

// RemovedBy is the place in the latest choice's Stages of the stage that
// removed token, or -1 when none did (it could be drawn, or was masked
// from the start): read from what each stage removed, which for typical-p,
// XTC or mirostat need not follow the tokens' ranking.
func (st *Stepper) RemovedBy(token int) int {
	if token < 0 || token >= len(st.removedBy) {
		return -1
	}
	return int(st.removedBy[token])
}

// settingError is a *sampler.SettingError of param whose reason is
// format's: every setting a runtime refuses.
func settingError(param, format string, args ...any) *sampler.SettingError {
	return &sampler.SettingError{Param: param, Reason: fmt.Sprintf(format, args...)}
}
