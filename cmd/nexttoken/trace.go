package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"nexttoken/engine/catalog"
	"nexttoken/engine/checkpoint"
	"nexttoken/engine/conversation"
	"nexttoken/engine/gguf"
	"nexttoken/engine/link"
	"nexttoken/engine/regularfile"
	"nexttoken/engine/sampler"
	"nexttoken/engine/sampler/compare"
	"nexttoken/engine/session"
	"nexttoken/engine/tokenizer"
	"nexttoken/engine/tracefile"
	"nexttoken/engine/transformer"
	"nexttoken/web/models"
)

const traceUsage = `usage: nexttoken trace [flags]

Prints a decoding session step by step: the softmax maths for hand-typed
logits, or prefill and every step of a model.

  nexttoken trace --logits="-2.1,0.3,3.1,0.8,0.1,-0.5" --vocab="The,cat,sat,on,the,mat"
  nexttoken trace --model=toy --prompt="The cat" --steps=4
  nexttoken trace --model=stories260K --prompt="Once upon a time" --steps=64
  nexttoken trace --model=model.gguf --prompt="Once upon a time" --steps=16
  nexttoken trace --model=model-instruct.gguf --chat --message=system:"Be brief." --message=user:Hello --steps=32

flags:
`

// traceFlags are the command line of trace.
type traceFlags struct {
	logits, vocab            string
	model, tokenizer, prompt string
	promptSet                bool // --prompt was given, perhaps as ""
	promptFile               string
	steps, top, threads      int
	json, vectors            bool
	ignoreEOS                bool
	recompute, lens          bool
	settings                 sampler.Settings
	set                      map[string]bool // the flags given
	chain                    string          // --sampler, or --chain
	compare                  string
	chat                     bool
	messages                 []conversation.Message // --message, --messages or, with --chat alone, --prompt
	messagesFile             string
}

// parseTraceFlags reads trace's command line; for -h it prints the usage
// and returns nil flags.
func parseTraceFlags(args []string, stdout io.Writer) (*traceFlags, error) {
	f := &traceFlags{settings: sampler.DefaultSettings()}
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.StringVar(&f.logits, "logits", "", "comma-separated logits to trace without a model (-inf masks a token)")
	fs.StringVar(&f.vocab, "vocab", "", "comma-separated tokens for --logits (default: their indices)")
	fs.StringVar(&f.model, "model", catalog.DefaultModel, "embedded model ("+strings.Join(models.Names, ", ")+"), a llama2.c checkpoint file or a GGUF file (llama architecture, weights "+gguf.SupportedTypes+")")
	fs.StringVar(&f.tokenizer, "tokenizer", "", "llama2.c tokenizer file, for a checkpoint file given to --model (optional for a GGUF file, which has its own)")
	fs.StringVar(&f.promptFile, "prompt-file", "", "a file whose text is the prompt, for prompts too long for an argument")
	fs.StringVar(&f.prompt, "prompt", "", "prompt text (default: an embedded model's own, "+defaultPrompts()+"; none for a checkpoint file, which starts from BOS as run.c does)")
	f.steps, f.top, f.threads = 4, 5, 1
	fs.Var(wholeFlag{&f.steps}, "steps", "the `number` of tokens to generate")
	fs.Var(wholeFlag{&f.top}, "top", "the `number` of candidates to list per step")
	fs.Var(wholeFlag{&f.threads}, "threads", "the `number` of threads each matrix product's rows are split among (the numbers are the same on any number)")
	fs.BoolVar(&f.ignoreEOS, "ignore-eos", false, "ignore the end of text: mask the tokens that end a text (EOS and BOS), as llama.cpp's --ignore-eos, so that the session goes on past them")
	fs.BoolVar(&f.json, "json", false, "print the whole trace as one JSON object, numbers unrounded: each step's top candidates and stage summaries")
	fs.BoolVar(&f.vectors, "vectors", false, "with --json: every step's full vectors too (logits, softmax, each stage's distribution, hidden state)")
	fs.BoolVar(&f.recompute, "recompute", false, "with --json: also run every step without the KV cache, the whole sequence again, and write the largest difference from the cached logits and both ways' multiply-adds")
	fs.BoolVar(&f.lens, "lens", false, "with --json: the logit lens of every step, each layer's --top most probable tokens (layers numbered from 0)")
	fs.StringVar(&f.chain, "sampler", string(sampler.Chain), "sampler: chain; runc for llama2.c run.c's exact sampling; llama.cpp or hf for that runtime's chain, "+
		"with its defaults for the sampler flags not given (llama.cpp: temperature 0.8, top-k 40, top-p 0.95, min-p 0.05; hf: temperature 1, top-k 50); "+
		"mirostat or mirostat2 for llama.cpp's --mirostat 1 or 2, or llama.cpp's stages by letter, such as edkt")
	fs.StringVar(&f.chain, "chain", string(sampler.Chain), "the same as --sampler")
	fs.StringVar(&f.compare, "compare", "", "after each step, run these chains on its logits, side by side: "+strings.Join(compare.Names, ", ")+
		" or a llama.cpp letter sequence such as edskypmxt, each with its runtime's defaults for the sampler flags not given")
	fs.BoolVar(&f.chat, "chat", false, "render the chat template of the GGUF model file (tokenizer.chat_template) for the messages, --prompt as the user's one message if none are given; "+
		"the prompt's special tokens are read as such, and the reply stops at the template's end of turn")
	fs.Var(messageFlag{&f.messages}, "message", "a `role:text` message of the chat, such as user:Hello; once per message, in order (implies --chat)")
	fs.StringVar(&f.messagesFile, "messages", "", `a JSON file of the chat's messages, [{"role": "user", "content": "Hello"}] (implies --chat)`)
	for _, p := range slices.Concat(sampler.Params, sampler.LlamaParams) {
		// The back-quoted word names the flag's argument in the usage.
		usage := p.Doc + "; " + strings.Replace(p.Range(), "number", "`number`", 1)
		fs.Var(settingFlag{p, &f.settings}, strings.ReplaceAll(p.Name, "_", "-"), usage)
	}
	if help, err := parseFlags(fs, args, traceUsage, stdout); help || err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.chooseChain(); err != nil {
		return nil, err
	}
	f.promptSet = f.set["prompt"]
	if f.promptFile != "" {
		if f.promptSet {
			return nil, errors.New("--prompt and --prompt-file: give one")
		}
		text, err := regularfile.ReadAll(f.promptFile, maxPromptFile)
		if err != nil {
			return nil, fmt.Errorf("--prompt-file: %w", err)
		}
		f.prompt, f.promptSet = string(text), true
	}
	if err := f.chatMessages(); err != nil {
		return nil, err
	}
	if f.top < 0 || f.top > maxTop {
		return nil, fmt.Errorf("--top=%d: want 0 to %d candidates", f.top, maxTop)
	}
	for name, on := range map[string]bool{"vectors": f.vectors, "recompute": f.recompute, "lens": f.lens} {
		if on && !f.json {
			return nil, fmt.Errorf("--%s needs --json", name)
		}
	}
	if f.compare != "" && f.json {
		return nil, errors.New("--compare prints text: --json does not carry the chains yet")
	}
	return f, nil
}

// chooseChain makes the settings those of the chain --sampler (or
// --chain) names, with the flags given, as compare.ChainSettings has it:
// in another runtime's mode that runtime's defaults for the flags not
// given, as links, --compare and the page's select take them.
func (f *traceFlags) chooseChain() error {
	if f.set["sampler"] && f.set["chain"] {
		return errors.New("--sampler and --chain are the same flag: give one")
	}
	given := func(param string) bool { return f.set[strings.ReplaceAll(param, "_", "-")] }
	set, err := compare.ChainSettings(f.chain, f.settings, given)
	if err != nil {
		var se *sampler.SettingError
		if errors.As(err, &se) {
			return fmt.Errorf("--sampler: %s", se.Reason)
		}
		return fmt.Errorf("--sampler: %w", err)
	}
	f.settings = set
	return nil
}

// settingFlag is the flag of a numeric sampler setting: p reads and checks
// it, so that the command line takes what links and the playground take.
type settingFlag struct {
	p   sampler.Param
	set *sampler.Settings
}

func (f settingFlag) String() string {
	if f.set == nil { // the zero value, which package flag makes to print defaults
		return ""
	}
	return strconv.FormatFloat(f.p.Get(*f.set), 'f', -1, 64)
}

func (f settingFlag) Set(v string) error {
	x, err := link.ParseSetting(f.p, v)
	if err != nil {
		return errors.New("want " + f.p.Range())
	}
	f.p.Set(f.set, x)
	return nil
}

// wholeFlag is a count's flag, a decimal whole number as links write
// their counts (package flag's own would take 0x10 and 1_000 too).
type wholeFlag struct{ n *int }

func (f wholeFlag) String() string {
	if f.n == nil { // the zero value, which package flag makes to print defaults
		return ""
	}
	return strconv.Itoa(*f.n)
}

func (f wholeFlag) Set(v string) error {
	n, err := link.ParseWhole(v)
	if err != nil {
		return errors.New("want a whole number")
	}
	*f.n = n
	return nil
}

// trace runs until it is done or Ctrl-C stops it.
func trace(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return traceUntil(ctx, args, stdout, stderr)
}

// traceUntil runs trace until it is done or ctx ends, between steps or
// between chunks of the prompt's prefill.
func traceUntil(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseTraceFlags(args, stdout)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if f == nil {
		return nil // -h printed the usage
	}
	spec, load, err := f.spec(ctx)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	steps := spec.Steps
	spec.Steps = 0
	s, err := session.NewWith(spec, load, session.Options{Kernels: transformer.Threads(f.threads), Prefill: prefillProgress(ctx, stderr)})
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if err := s.KeepTop(f.top); err != nil {
		return fmt.Errorf("trace: --top: %w", err)
	}
	if spec.Chat != nil && !f.json {
		printChat(stdout, s.Model().Chat, s.Trace().Prompt, len(spec.Chat.Messages))
	}
	var out traceWriter = &textTrace{w: stdout}
	switch {
	case f.json:
		j := &jsonTrace{out: tracefile.JSON{W: stdout}, vectors: f.vectors, recompute: f.recompute}
		if f.lens {
			j.lens = f.top
		}
		if (f.recompute || f.lens) && !s.RunsModel() {
			return errors.New("trace: --recompute and --lens need a model, not --logits")
		}
		out = j
	case spec.Model == session.LogitsModel:
		out = &softmaxSteps{w: stdout}
	}
	chains, err := f.chains()
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if chains != nil {
		out = &chainsTrace{traceWriter: out, w: stdout, chains: chains}
	}
	return runTrace(ctx, s, steps, out)
}

// progressEvery is how long a prefill runs before it reports on standard
// error, and between reports: a long prompt on a large model takes minutes.
var progressEvery = time.Second

// errInterrupted is how the trace ends when ctx does (Ctrl-C).
var errInterrupted = errors.New("interrupted")

// prefillProgress reports, every progressEvery, how much more of the
// prompt has been prefilled, and stops the prefill once ctx ends: the
// session asks between chunks and within them (session.PrefillSlice).
func prefillProgress(ctx context.Context, stderr io.Writer) session.Progress {
	start := time.Now()
	last, told := start, 0
	return func(done, total int) error {
		if ctx.Err() != nil {
			return fmt.Errorf("%w during the prompt's prefill, after %d of its %d tokens", errInterrupted, done, total)
		}
		if now := time.Now(); now.Sub(last) >= progressEvery && done > told && done < total {
			last, told = now, done
			fmt.Fprintf(stderr, "prefill: %d of %d prompt tokens, %.0f s (Ctrl-C stops)\n", done, total, now.Sub(start).Seconds())
		}
		return nil
	}
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

// preparer is a traceWriter that reads the model before each step is
// taken, while the latest forward pass is the one whose logits the step
// samples from.
type preparer interface {
	prepare(s *session.Session, i int) error
}

// runTrace runs up to steps steps of s through out, until ctx ends.
func runTrace(ctx context.Context, s *session.Session, steps int, out traceWriter) error {
	if err := out.start(s); err != nil {
		return err
	}
	for i := range steps {
		if ctx.Err() != nil {
			return fmt.Errorf("trace: %w after %d of %d steps", errInterrupted, i, steps)
		}
		if p, ok := out.(preparer); ok && s.Trace().Stop.Kind == session.Running {
			if err := p.prepare(s, i); err != nil {
				return fmt.Errorf("trace: %w", err)
			}
		}
		if err := s.Step(); errors.Is(err, session.ErrStopped) {
			break
		} else if err != nil {
			return fmt.Errorf("trace: %w", err)
		}
		var d *session.Detail
		if out.wantsDetail() {
			// A Detail lasts until the session changes: the step's own,
			// derived once it is taken.
			var err error
			if d, err = s.Detail(i); err != nil {
				return fmt.Errorf("trace: %w", err)
			}
		}
		if err := out.step(s, i, d); err != nil {
			return err
		}
	}
	return out.end(s)
}

// spec turns the flags into a session spec and the loader for its model;
// a chat's template is rendered here, until ctx ends.
func (f *traceFlags) spec(ctx context.Context) (session.Spec, session.Loader, error) {
	spec := session.Spec{Sampler: f.settings, Steps: f.steps, Prompt: f.prompt, Model: f.model}
	spec.Sampler.IgnoreEOS = f.ignoreEOS
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
	m, embedded := catalog.Lookup(f.model)
	if embedded && f.chat {
		return spec, nil, fmt.Errorf("--chat needs a GGUF model file, whose metadata holds its chat template; the embedded model %s has none", m.Name)
	}
	if embedded {
		if f.tokenizer != "" {
			return spec, nil, fmt.Errorf("--tokenizer goes with a model file given to --model (a llama2.c checkpoint, or a GGUF file whose own tokenizer it replaces), not with the embedded model %s, which has its own", m.Name)
		}
		if m.Name == f.model && !f.promptSet {
			spec.Prompt = m.Prompt
		}
		return spec, models.Load, nil
	}
	// A name that is no embedded model is a file's.
	gg, err := isGGUF(f.model)
	switch {
	case errors.Is(err, fs.ErrNotExist) && f.tokenizer == "":
		return spec, models.Load, nil // which says which models there are
	case err != nil:
		return spec, nil, fmt.Errorf("--model: %w", err)
	case f.chat && (!gg || f.tokenizer != ""):
		return spec, nil, fmt.Errorf("--chat needs a GGUF model file with its own tokenizer, whose metadata holds the chat template")
	case f.chat:
		m, err := loadChatUntil(ctx, f.model)
		if err != nil {
			return spec, nil, err
		}
		spec.Prompt, spec.Chat = "", &session.Chat{Messages: f.messages, GenerationPrompt: true}
		return spec, func(string) (*session.Model, error) { return m, nil }, nil
	case gg:
		return spec, func(name string) (*session.Model, error) { return loadGGUF(name, f.tokenizer) }, nil
	case f.tokenizer == "":
		return spec, nil, fmt.Errorf("--model=%s is a file, not a GGUF one: a llama2.c checkpoint needs its tokenizer, --tokenizer=FILE (such as tokenizer.bin)", f.model)
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
	data, err := regularfile.ReadAll(tokenizerPath, maxTokenizerFile)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", tokenizerPath, err)
	}
	return session.NewModel(checkpointPath, ckpt, data)
}

// isGGUF reports whether path is a regular file that starts with GGUF's
// magic; it fails for a path that names no regular file.
func isGGUF(path string) (bool, error) {
	fd, _, err := regularfile.Open(path)
	if err != nil {
		return false, err
	}
	defer fd.Close()
	magic := make([]byte, len(gguf.Magic))
	_, err = io.ReadFull(fd, magic)
	return err == nil && string(magic) == gguf.Magic, nil
}

// loadGGUF reads the llama model of a GGUF file, decoding its weights
// straight from the file, with the tokenizer of its metadata or, if
// tokenizerPath is not empty, of that llama2.c tokenizer file.
func loadGGUF(path, tokenizerPath string) (*session.Model, error) {
	f, closer, err := gguf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	defer closer.Close()
	m, err := f.Model()
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", path, err)
	}
	if tokenizerPath != "" {
		data, err := regularfile.ReadAll(tokenizerPath, maxTokenizerFile)
		if err != nil {
			return nil, fmt.Errorf("tokenizer %s: %w", tokenizerPath, err)
		}
		return session.NewModel(path, m, data)
	}
	tok, err := f.Tokenizer()
	if err != nil {
		return nil, fmt.Errorf("model %s: %w (--tokenizer can give a llama2.c tokenizer file instead)", path, err)
	}
	return session.Pair(path, m, tok)
}

// defaultPrompts lists the embedded models' own prompts for --prompt's help.
func defaultPrompts() string {
	var p []string
	for _, m := range catalog.Models {
		if m.Prompt != "" {
			p = append(p, fmt.Sprintf("%q for %s", m.Prompt, m.Name))
		}
	}
	return strings.Join(p, ", ")
}

// Files read whole are bounded before they are read (regularfile.ReadAll),
// so that /dev/zero or a mistyped path to a disk image is not read until
// memory runs out: a prompt far longer than any context, a tokenizer as
// tokenizer.Read bounds it.
const (
	maxPromptFile    = 16 << 20
	maxTokenizerFile = tokenizer.MaxFile
)

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
