package refcases

import (
	"fmt"
	"io"

	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
)

// SessionCase is a session in llama.cpp mode (sampler.LlamaCpp) whose
// tokens are compared with those llama.cpp's own samplers choose, step
// after step, on the same logits.
type SessionCase struct {
	Name string
	Spec session.Spec
}

// Sessions are the sessions compared: stories260K with llama.cpp's
// default settings and several seeds, a high temperature, every filter
// off, a repetition penalty, greedy decoding (temperature 0, which
// llama.cpp still draws for), one to the end of the context; then
// mirostat v2 and v1, whose mu carries from step to step, and DRY in a
// sequence of its own and in llama.cpp's default chain, reading the
// model's vocabulary.
func Sessions() []SessionCase {
	llama := func(seed uint64, change func(*sampler.Settings)) sampler.Settings {
		s, err := compare.Defaults(sampler.LlamaCpp, seed)
		if err != nil {
			panic(err) // the mode has defaults
		}
		if change != nil {
			change(&s)
		}
		return s
	}
	spec := func(prompt string, steps int, set sampler.Settings) session.Spec {
		return session.Spec{Model: "stories260K", Prompt: prompt, Sampler: set, Steps: steps}
	}
	return []SessionCase{
		{"defaults-seed-42", spec("Once upon a time", 200, llama(42, nil))},
		{"defaults-seed-7", spec("Lily", 200, llama(7, nil))},
		{"defaults-seed-5489", spec("The dog", 200, llama(5489, nil))},
		{"hot-1.5", spec("Once upon a time", 200, llama(3, func(s *sampler.Settings) { s.Temperature = 1.5 }))},
		{"hot-2.5-no-filters", spec("Once upon a time", 200, llama(11, func(s *sampler.Settings) {
			s.Temperature, s.TopK, s.TopP, s.MinP = 2.5, 0, 0, 0
		}))},
		{"penalty-1.3", spec("Once upon a time", 200, llama(13, func(s *sampler.Settings) { s.RepetitionPenalty = 1.3 }))},
		{"penalty-0.8-top-k-5", spec("Tom", 200, llama(17, func(s *sampler.Settings) {
			s.RepetitionPenalty, s.TopK, s.Temperature = 0.8, 5, 1
		}))},
		{"greedy", spec("Once upon a time", 100, llama(19, func(s *sampler.Settings) { s.Temperature = 0 }))},
		{"to-the-end", spec("", 512, llama(23, func(s *sampler.Settings) { s.Temperature = 1 }))},
		{"mirostat2-tau-3", spec("Once upon a time", 200, llama(29, func(s *sampler.Settings) {
			s.Temperature, s.Mirostat, s.MirostatTau, s.MirostatEta = 1, 2, 3, 0.1
		}))},
		{"mirostat1", spec("Lily", 200, llama(31, func(s *sampler.Settings) { s.Mirostat, s.MirostatTau, s.MirostatEta = 1, 5, 0.1 }))},
		{"dry-edkt", spec("Once upon a time", 200, llama(37, func(s *sampler.Settings) {
			s.Sequence, s.Temperature = "edkt", 1
			s.DryMultiplier, s.DryBase, s.DryAllowedLength, s.DryPenaltyLastN = 0.8, 1.75, 2, 64
		}))},
		{"dry-defaults-cool", spec("Tom", 200, llama(41, func(s *sampler.Settings) {
			s.Temperature = 0.5
			s.DryMultiplier, s.DryBase, s.DryAllowedLength, s.DryPenaltyLastN = 2, 1.5, 1, 128
		}))},
	}
}

// WriteSessions runs each session and writes it in the harness's input
// format: the llama.cpp parameters the session's settings map to
// (compare.ForSession) with the model's pieces (compare.Vocab), the
// prompt as the history llama.cpp accepts
// before the first step, then the logits of every step the session took,
// the model's after the session's own tokens:
//
//	session NAME
//	seq, ints, floats, history   (as a case's; ints give the steps taken)
//	step N LOGIT...              (one per step)
func WriteSessions(w io.Writer, cases []SessionCase, load session.Loader) error {
	for _, c := range cases {
		ch, err := compare.ForSession(c.Spec.Sampler)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		spec := c.Spec
		spec.Steps = 0
		s, err := session.New(spec, load)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		ch.Llama.Vocab = compare.Vocab(s.Model().Tokenizer) // DRY's, as the session's Stepper reads it
		var steps [][]float32
		for range c.Spec.Steps {
			d, err := s.Detail(len(steps)) // the next step: the live model's logits
			if err != nil {
				break // the session stopped
			}
			logits := make([]float32, len(d.Logits))
			for i, l := range d.Logits {
				logits[i] = float32(l) // exact: the model's float32 logits, widened
			}
			steps = append(steps, logits)
			if err := s.Step(); err != nil {
				return fmt.Errorf("%s: %w", c.Name, err)
			}
		}
		var prompt []int32
		for _, t := range s.Trace().Prompt {
			prompt = append(prompt, int32(t.ID))
		}
		writeParams(w, "session", c.Name, ch.Llama, len(steps), prompt)
		for _, l := range steps {
			fmt.Fprintf(w, "\nstep")
			writeLogits(w, l)
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}
