package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"nexttoken/engine/checkpoint"
	"nexttoken/engine/sampler"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
	"nexttoken/web/models"
)

const traceUsage = `usage: nexttoken trace [flags]

Prints a decoding session step by step: the softmax maths for hand-typed
logits, or prefill and every step of a model.

  nexttoken trace --logits="-2.1,0.3,3.1,0.8,0.1,-0.5" --vocab="The,cat,sat,on,the,mat"
  nexttoken trace --model=toy --prompt="The cat" --steps=4
  nexttoken trace --model=stories260K --prompt="Once upon a time" --steps=64

flags:
`

// traceFlags are the command line of trace.
type traceFlags struct {
	logits, vocab                string
	model, tokenizer, prompt     string
	steps, top                   int
	json, vectors                bool
	settings                     sampler.Settings
	samplerMode                  string
	topK                         int
	temperature, topP, minP, rep float64
	seed                         uint64
}

// parseTraceFlags reads trace's command line; for -h it prints the usage
// and returns nil flags.
func parseTraceFlags(args []string, stdout io.Writer) (*traceFlags, error) {
	f := &traceFlags{}
	def := sampler.DefaultSettings()
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.StringVar(&f.logits, "logits", "", "comma-separated logits to trace without a model (-inf masks a token)")
	fs.StringVar(&f.vocab, "vocab", "", "comma-separated tokens for --logits (default: their indices)")
	fs.StringVar(&f.model, "model", "toy", "embedded model (toy, stories260K) or a llama2.c checkpoint file")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "llama2.c tokenizer file, for a checkpoint file given to --model")
	fs.StringVar(&f.prompt, "prompt", "The cat", "prompt text")
	fs.IntVar(&f.steps, "steps", 4, "number of tokens to generate")
	fs.IntVar(&f.top, "top", 5, "candidates to list per step")
	fs.BoolVar(&f.json, "json", false, "print the whole trace as one JSON object, numbers unrounded: each step's top candidates and stage summaries")
	fs.BoolVar(&f.vectors, "vectors", false, "with --json: every step's full vectors too (logits, softmax, each stage's distribution, hidden state)")
	fs.StringVar(&f.samplerMode, "sampler", sampler.Chain, "sampler: chain, or runc for llama2.c run.c's exact sampling")
	fs.Float64Var(&f.temperature, "temperature", def.Temperature, "temperature; 0 is greedy")
	fs.IntVar(&f.topK, "top-k", def.TopK, "keep the k most probable tokens; 0 is off")
	fs.Float64Var(&f.topP, "top-p", def.TopP, "keep the smallest set of tokens with probability ≥ p; 0 or 1 is off")
	fs.Float64Var(&f.minP, "min-p", def.MinP, "keep tokens with probability ≥ min-p × the largest; 0 is off")
	fs.Float64Var(&f.rep, "repetition-penalty", def.RepetitionPenalty, "divide positive (multiply negative) logits of tokens already in the context; 1 is off")
	fs.Uint64Var(&f.seed, "seed", def.Seed, "random seed, ≥ 1")
	if help, err := parseFlags(fs, args, traceUsage, stdout); help || err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.top < 0 || f.top > maxTop {
		return nil, fmt.Errorf("--top=%d: want 0 to %d candidates", f.top, maxTop)
	}
	if f.vectors && !f.json {
		return nil, errors.New("--vectors needs --json")
	}
	f.settings = sampler.Settings{
		Mode: f.samplerMode, Temperature: f.temperature, TopK: f.topK, TopP: f.topP,
		MinP: f.minP, RepetitionPenalty: f.rep, Seed: f.seed,
	}
	return f, nil
}

func trace(args []string, stdout, stderr io.Writer) error {
	f, err := parseTraceFlags(args, stdout)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if f == nil {
		return nil // -h printed the usage
	}
	spec, load, err := f.spec()
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	steps := spec.Steps
	spec.Steps = 0
	s, err := session.New(spec, load)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if err := s.KeepTop(f.top); err != nil {
		return fmt.Errorf("trace: --top: %w", err)
	}
	var out traceWriter = &textTrace{w: stdout}
	switch {
	case f.json:
		out = &jsonTrace{w: stdout, vectors: f.vectors}
	case spec.Model == session.LogitsModel:
		out = &softmaxSteps{w: stdout}
	}
	return runTrace(s, steps, out)
}

// traceWriter prints a session as it runs: the start, then each step as it
// is made, then the end. Nothing waits for the whole session.
type traceWriter interface {
	start(s *session.Session) error
	// step prints step i; d is its full detail when the writer asked for it.
	step(s *session.Session, i int, d *session.Detail) error
	end(s *session.Session) error
	wantsDetail() bool
}

// runTrace runs up to steps steps of s through out.
func runTrace(s *session.Session, steps int, out traceWriter) error {
	if err := out.start(s); err != nil {
		return err
	}
	for i := range steps {
		var d *session.Detail
		if out.wantsDetail() {
			// The next step's detail reads the live model: no pass again.
			var err error
			if d, err = s.Detail(i); errors.Is(err, session.ErrStopped) {
				break
			} else if err != nil {
				return fmt.Errorf("trace: %w", err)
			}
		}
		if err := s.Step(); errors.Is(err, session.ErrStopped) {
			break
		} else if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		if d != nil {
			d.Step = s.Trace().Steps[i]
		}
		if err := out.step(s, i, d); err != nil {
			return err
		}
	}
	return out.end(s)
}

// spec turns the flags into a session spec and the loader for its model.
func (f *traceFlags) spec() (session.Spec, session.Loader, error) {
	spec := session.Spec{Sampler: f.settings, Steps: f.steps, Prompt: f.prompt, Model: f.model}
	if f.steps < 0 {
		return spec, nil, fmt.Errorf("--steps=%d is negative", f.steps)
	}
	if f.logits != "" {
		logits, err := parseLogits(f.logits)
		if err != nil {
			return spec, nil, err
		}
		spec.Model, spec.Prompt, spec.Logits, spec.Steps = session.LogitsModel, "", logits, 1
		spec.Vocab = strings.Split(f.vocab, ",")
		if f.vocab == "" {
			spec.Vocab = make([]string, len(logits))
			for i := range spec.Vocab {
				spec.Vocab[i] = strconv.Itoa(i)
			}
		}
		return spec, nil, nil
	}
	if f.vocab != "" {
		return spec, nil, errors.New("--vocab needs --logits")
	}
	if f.tokenizer == "" {
		return spec, models.Load, nil
	}
	return spec, func(name string) (*session.Model, error) { return loadFiles(name, f.tokenizer) }, nil
}

// loadFiles reads a llama2.c checkpoint and tokenizer file, as
// session.LoadModel reads them from memory, but decodes the checkpoint
// straight from the file: the weights are held once, not also as the
// file's bytes (a 60 MB checkpoint peaked at twice its size).
func loadFiles(checkpointPath, tokenizerPath string) (*session.Model, error) {
	ckpt, err := checkpoint.ReadFile(checkpointPath)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", checkpointPath, err)
	}
	data, err := os.ReadFile(tokenizerPath)
	if err != nil {
		return nil, err
	}
	v, err := tokenizer.Read(data)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", checkpointPath, err)
	}
	if len(v.Pieces) != ckpt.Config.VocabSize {
		return nil, fmt.Errorf("model %s: the tokenizer has %d tokens but the checkpoint's vocabulary has %d",
			checkpointPath, len(v.Pieces), ckpt.Config.VocabSize)
	}
	tok, err := tokenizer.New(v)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", checkpointPath, err)
	}
	return &session.Model{Name: checkpointPath, Checkpoint: ckpt, Tokenizer: tok}, nil
}

// maxTop bounds --top: more candidates than anyone reads per step.
const maxTop = 1000

// parseLogits reads comma-separated numbers; "-inf" masks a token.
func parseLogits(s string) ([]float64, error) {
	fields := strings.Split(s, ",")
	logits := make([]float64, len(fields))
	for i, field := range fields {
		v, err := strconv.ParseFloat(strings.TrimSpace(field), 64)
		switch {
		case err != nil && !errors.Is(err, strconv.ErrRange):
			return nil, fmt.Errorf("--logits: value %d, %q, is not a number", i+1, field)
		case err != nil || math.IsInf(v, 1) || math.IsNaN(v):
			return nil, fmt.Errorf("--logits: value %d, %q, is not a finite number or -inf", i+1, field)
		}
		logits[i] = v
	}
	return logits, nil
}
